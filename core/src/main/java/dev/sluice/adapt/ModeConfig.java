package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The operating modes: what moves a deployment between normal, caution, brownout and load
 * shedding, and what each mode does to admission.
 *
 * @param multiplier the adaptive multiplier relative to its learned ceiling (bad when low); it
 *     counts only while refusals make up at least the headerless clean ratio (1%) of the window's
 *     answers: a low multiplier without them is pacing that already works, and a lone 429 is the
 *     probe of a deployment running at its real limit
 * @param limitedRatio 429s and overloads among answers over the window (bad when high)
 * @param queuePressure mean share of the wait budget (class budget cut by the deadline) that
 *     queued requests of {@link #queuePressureClasses} used over the window; a request refused
 *     for lack of time counts as 1 (bad when high)
 * @param latencyRatio window p95 latency over the baseline (bad when high)
 * @param minDwell the least time spent in a defensive mode before stepping down one mode
 * @param brownoutMaxTokensFactor in brownout the gateway caps a request's max output tokens to
 *     this fraction, in (0, 1], and says so in the {@code x-sluice-brownout} response header
 * @param pausedInBrownout classes refused while in brownout
 * @param servedWhileShedding classes still admitted while shedding load; always includes critical
 * @param queuePressureClasses classes whose queue waits count as pressure
 * @param latencyBaseline the p95 latency that counts as healthy; empty to learn it while normal
 * @param minRetryAfter the least retry delay given to a refused request
 * @param shedding the sustained pressure load shedding needs, and the order it sheds in
 */
public record ModeConfig(ModeTrigger multiplier, ModeTrigger limitedRatio, ModeTrigger queuePressure,
        ModeTrigger latencyRatio, Duration minDwell, double brownoutMaxTokensFactor,
        Set<TrafficClass> pausedInBrownout, Set<TrafficClass> servedWhileShedding,
        Set<TrafficClass> queuePressureClasses, Optional<Duration> latencyBaseline, Duration minRetryAfter,
        SheddingConfig shedding) {

    /**
     * Multiplier: caution below 0.85 (one cut), brownout below 0.55 (two cuts in a row), shedding
     * below 0.30 (three); each is left only once it is 0.10 to 0.15 higher again.
     */
    public static final ModeTrigger DEFAULT_MULTIPLIER = ModeTrigger.below(
            new ModeTrigger.Levels(0.85, 0.55, 0.30), new ModeTrigger.Levels(0.95, 0.70, 0.45));

    /**
     * 429 ratio: 2% is already twice the 1% a healthy deployment stays under (caution); at 10% one
     * request in ten is wasted (brownout); at 25% retries alone would multiply the load (shedding).
     * Exits at about half.
     */
    public static final ModeTrigger DEFAULT_LIMITED_RATIO = ModeTrigger.above(
            new ModeTrigger.Levels(0.02, 0.10, 0.25), new ModeTrigger.Levels(0.01, 0.05, 0.15));

    /**
     * Queue pressure: at a quarter of the budget spent waiting people notice (caution); at half,
     * requests start timing out behind each other (brownout, which trims output and so frees
     * capacity). Queue pressure alone never sheds: demand above a correctly paced limit fills the
     * queues of a perfectly healthy provider, and refusing everything then only wastes the quota
     * (the simulator's cold start at 150% showed 8.6% utilisation when it did). Shedding is for a
     * provider in distress, which the multiplier and the 429 ratio say.
     */
    public static final ModeTrigger DEFAULT_QUEUE_PRESSURE = ModeTrigger.above(
            new ModeTrigger.Levels(0.25, 0.50, Double.POSITIVE_INFINITY), new ModeTrigger.Levels(0.15, 0.35, 0.60));

    /**
     * Latency: p95 1.5 times the baseline is caution, 2.5 times is brownout (trimming output is what
     * brings LLM latency down); latency alone never sheds, since output length moves it too.
     */
    public static final ModeTrigger DEFAULT_LATENCY_RATIO = ModeTrigger.above(
            new ModeTrigger.Levels(1.5, 2.5, Double.POSITIVE_INFINITY), new ModeTrigger.Levels(1.25, 2.0, 4.0));

    /** Fifteen seconds: longer than a provider's 10 s window and the 3 s window slice, so one quiet slice cannot end a mode. */
    public static final Duration DEFAULT_MIN_DWELL = Duration.ofSeconds(15);

    /** Half the output: the part of an LLM call's latency and token cost that grows with length is halved. */
    public static final double DEFAULT_BROWNOUT_MAX_TOKENS_FACTOR = 0.5;

    /** One second: a shed client should not come back sooner than the next provider window. */
    public static final Duration DEFAULT_MIN_RETRY_AFTER = Duration.ofSeconds(1);

    public ModeConfig {
        Objects.requireNonNull(multiplier, "multiplier");
        Objects.requireNonNull(limitedRatio, "limitedRatio");
        Objects.requireNonNull(queuePressure, "queuePressure");
        Objects.requireNonNull(latencyRatio, "latencyRatio");
        Objects.requireNonNull(minDwell, "minDwell");
        Objects.requireNonNull(latencyBaseline, "latencyBaseline");
        Objects.requireNonNull(minRetryAfter, "minRetryAfter");
        ConfigException.require(multiplier.direction() == ModeTrigger.Direction.BELOW, "multiplier.direction",
                "below (a low multiplier is bad)", multiplier.direction());
        ConfigException.require(limitedRatio.direction() == ModeTrigger.Direction.ABOVE, "limited_ratio.direction",
                "above", limitedRatio.direction());
        ConfigException.require(queuePressure.direction() == ModeTrigger.Direction.ABOVE, "queue_pressure.direction",
                "above", queuePressure.direction());
        ConfigException.require(latencyRatio.direction() == ModeTrigger.Direction.ABOVE, "latency_ratio.direction",
                "above", latencyRatio.direction());
        ConfigException.require(!minDwell.isNegative(), "min_dwell", ">= 0", minDwell);
        ConfigException.require(brownoutMaxTokensFactor > 0 && brownoutMaxTokensFactor <= 1,
                "brownout_max_tokens_factor", "in (0, 1]", brownoutMaxTokensFactor);
        pausedInBrownout = copy(pausedInBrownout, "pausedInBrownout");
        servedWhileShedding = copy(servedWhileShedding, "servedWhileShedding");
        queuePressureClasses = copy(queuePressureClasses, "queuePressureClasses");
        ConfigException.require(!pausedInBrownout.contains(TrafficClass.CRITICAL), "paused_in_brownout",
                "no critical (critical work is never paused)", pausedInBrownout);
        ConfigException.require(servedWhileShedding.contains(TrafficClass.CRITICAL), "served_while_shedding",
                "critical among them (critical work is never shed)", servedWhileShedding);
        latencyBaseline.ifPresent(b -> ConfigException.require(b.isPositive(), "latency_baseline", "> 0", b));
        ConfigException.require(minRetryAfter.isPositive(), "min_retry_after", "> 0", minRetryAfter);
        Objects.requireNonNull(shedding, "shedding");
    }

    /** A configuration with the default {@link SheddingConfig}. */
    public ModeConfig(ModeTrigger multiplier, ModeTrigger limitedRatio, ModeTrigger queuePressure,
            ModeTrigger latencyRatio, Duration minDwell, double brownoutMaxTokensFactor,
            Set<TrafficClass> pausedInBrownout, Set<TrafficClass> servedWhileShedding,
            Set<TrafficClass> queuePressureClasses, Optional<Duration> latencyBaseline, Duration minRetryAfter) {
        this(multiplier, limitedRatio, queuePressure, latencyRatio, minDwell, brownoutMaxTokensFactor, pausedInBrownout,
                servedWhileShedding, queuePressureClasses, latencyBaseline, minRetryAfter, SheddingConfig.defaults());
    }

    /** The documented defaults. */
    public static ModeConfig defaults() {
        return new ModeConfig(DEFAULT_MULTIPLIER, DEFAULT_LIMITED_RATIO, DEFAULT_QUEUE_PRESSURE, DEFAULT_LATENCY_RATIO,
                DEFAULT_MIN_DWELL, DEFAULT_BROWNOUT_MAX_TOKENS_FACTOR, EnumSet.of(TrafficClass.BACKGROUND),
                EnumSet.of(TrafficClass.CRITICAL), EnumSet.of(TrafficClass.CRITICAL, TrafficClass.INTERACTIVE),
                Optional.empty(), DEFAULT_MIN_RETRY_AFTER, SheddingConfig.defaults());
    }

    public ModeConfig withMinDwell(Duration next) {
        return new ModeConfig(multiplier, limitedRatio, queuePressure, latencyRatio, next, brownoutMaxTokensFactor,
                pausedInBrownout, servedWhileShedding, queuePressureClasses, latencyBaseline, minRetryAfter, shedding);
    }

    public ModeConfig withLatencyBaseline(Optional<Duration> next) {
        return new ModeConfig(multiplier, limitedRatio, queuePressure, latencyRatio, minDwell, brownoutMaxTokensFactor,
                pausedInBrownout, servedWhileShedding, queuePressureClasses, next, minRetryAfter, shedding);
    }

    public ModeConfig withShedding(SheddingConfig next) {
        return new ModeConfig(multiplier, limitedRatio, queuePressure, latencyRatio, minDwell, brownoutMaxTokensFactor,
                pausedInBrownout, servedWhileShedding, queuePressureClasses, latencyBaseline, minRetryAfter, next);
    }

    private static Set<TrafficClass> copy(Set<TrafficClass> classes, String name) {
        Objects.requireNonNull(classes, name);
        EnumSet<TrafficClass> s = EnumSet.noneOf(TrafficClass.class);
        s.addAll(classes);
        return java.util.Collections.unmodifiableSet(s);
    }
}
