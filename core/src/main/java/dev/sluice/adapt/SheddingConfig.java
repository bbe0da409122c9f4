package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What load shedding needs before it refuses anyone, and in which order it refuses.
 *
 * <ul>
 *   <li>Sustained pressure: the deployment enters load shedding only once {@code refusals} fresh
 *       provider refusals (429s and overloads sent after the refusal before them, so one burst of
 *       answers to requests already in flight counts once) arrived within {@code within}; until
 *       then brownout is the most defensive mode any signal can reach.
 *   <li>Order: while shedding, every class but critical and {@code shedLast} is refused at once;
 *       the {@code shedLast} classes are refused only when {@code refusals} more fresh refusals
 *       arrive within {@code within} while shedding, that is when refusing the others did not
 *       relieve the provider. Critical work is never shed.
 * </ul>
 *
 * @param refusals fresh refusals needed, at least 1
 * @param within the span they must fall in
 * @param shedLast classes shed only when shedding the others was not enough; never critical
 */
public record SheddingConfig(int refusals, Duration within, Set<TrafficClass> shedLast) {

    /**
     * Three: one refusal is a probe or one tenant's large request meeting a full provider window;
     * two can be the same window refusing twice; three in a row is the provider refusing whatever
     * is sent (the noisy-neighbour finding of issue 16: one batch tenant's 30,000-token prompts
     * shed every interactive caller after a single 429).
     */
    public static final int DEFAULT_REFUSALS = 3;

    /**
     * Ten seconds: the longest short window a provider documents (Azure's 10 s request window), so
     * three refusals within it are three windows refusing, not one.
     */
    public static final Duration DEFAULT_WITHIN = Duration.ofSeconds(10);

    public SheddingConfig {
        Objects.requireNonNull(within, "within");
        Objects.requireNonNull(shedLast, "shedLast");
        ConfigException.require(refusals >= 1, "refusals", ">= 1", refusals);
        ConfigException.require(within.isPositive(), "within", "> 0", within);
        EnumSet<TrafficClass> s = EnumSet.noneOf(TrafficClass.class);
        s.addAll(shedLast);
        ConfigException.require(!s.contains(TrafficClass.CRITICAL), "shed_last",
                "no critical (critical work is never shed)", shedLast);
        shedLast = Collections.unmodifiableSet(s);
    }

    /** Three fresh refusals within 10 s; interactive shed last. */
    public static SheddingConfig defaults() {
        return new SheddingConfig(DEFAULT_REFUSALS, DEFAULT_WITHIN, EnumSet.of(TrafficClass.INTERACTIVE));
    }
}
