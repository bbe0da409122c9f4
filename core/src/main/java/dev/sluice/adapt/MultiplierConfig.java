package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * The adaptive multiplier: the fraction of a deployment's configured rates that is dispatched.
 * Cut multiplicatively on a 429 or an overload, recovered additively on every success and for every
 * second without a fresh refusal once {@code cleanRecoveryAfter} has passed.
 *
 * @param decrease the factor a 429 or overload multiplies it by, in (0, 1)
 * @param increasePerSuccess what each successful answer adds back, in (0, 1]
 * @param floor the lowest it goes, in (0, 1]
 * @param perDimension true keeps one multiplier per limited rate (requests, input tokens, ...) and
 *     cuts only the one the provider named; false shares one across all rates
 * @param cleanRecoveryAfter how long after the last fresh refusal the climb by clean time begins
 * @param increasePerCleanSecond what each second of clean time after that adds back, in [0, 1]
 *     (0: recovery by successes only); halved after each cut that ends a climb by clean time, at
 *     most four times, until {@code 16 x cleanRecoveryAfter} pass without a fresh refusal
 */
public record MultiplierConfig(double decrease, double increasePerSuccess, double floor, boolean perDimension,
        Duration cleanRecoveryAfter, double increasePerCleanSecond) {

    /**
     * x0.65: three consecutive cuts take a deployment from full rate to about a quarter, deep enough
     * to clear a provider window emptied by a burst, shallow enough that one stray 429 costs a third.
     */
    public static final double DEFAULT_DECREASE = 0.65;

    /** +0.03 per success: about a dozen clean answers undo one cut, so recovery follows the provider's pace. */
    public static final double DEFAULT_INCREASE_PER_SUCCESS = 0.03;

    /** 0.20: below a fifth of the configured rate the deployment is better served by shedding than by pacing. */
    public static final double DEFAULT_FLOOR = 0.20;

    /**
     * 10 s: the longest short window a provider documents for a per-minute rate (Azure's request
     * window); a refusal's window has refilled by then, so what stays clean after it is evidence.
     */
    public static final Duration DEFAULT_CLEAN_RECOVERY_AFTER = Duration.ofSeconds(10);

    /**
     * +0.01 per clean second: a cut of x0.65 from full rate is undone in about 45 s of clean time
     * (after the first 10 s) even when no answer comes back. Faster (+0.03) raised long-streaming's
     * provider 429s further and served its worst member's interactive callers worse; see
     * docs/ADAPTIVE.md, Known limits.
     */
    public static final double DEFAULT_INCREASE_PER_CLEAN_SECOND = 0.01;

    /** With the default climb by clean time. */
    public MultiplierConfig(double decrease, double increasePerSuccess, double floor, boolean perDimension) {
        this(decrease, increasePerSuccess, floor, perDimension, DEFAULT_CLEAN_RECOVERY_AFTER,
                DEFAULT_INCREASE_PER_CLEAN_SECOND);
    }

    public MultiplierConfig {
        ConfigException.require(decrease > 0 && decrease < 1, "decrease", "in (0, 1)", decrease);
        ConfigException.require(increasePerSuccess > 0 && increasePerSuccess <= 1, "increase_per_success",
                "in (0, 1]", increasePerSuccess);
        ConfigException.require(floor > 0 && floor <= 1, "floor", "in (0, 1]", floor);
        Objects.requireNonNull(cleanRecoveryAfter, "cleanRecoveryAfter");
        ConfigException.require(!cleanRecoveryAfter.isNegative(), "clean_recovery_after", ">= 0", cleanRecoveryAfter);
        ConfigException.require(increasePerCleanSecond >= 0 && increasePerCleanSecond <= 1,
                "increase_per_clean_second", "in [0, 1]", increasePerCleanSecond);
    }

    /** The documented defaults: x0.65, +0.03, floor 0.20, shared, +0.01 per clean second after 10 s. */
    public static MultiplierConfig defaults() {
        return new MultiplierConfig(DEFAULT_DECREASE, DEFAULT_INCREASE_PER_SUCCESS, DEFAULT_FLOOR, false);
    }
}
