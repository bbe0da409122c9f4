package dev.sluice.adapt;

import dev.sluice.config.ConfigException;

/**
 * The adaptive multiplier: the fraction of a deployment's configured rates that is dispatched.
 * Cut multiplicatively on a 429 or an overload, recovered additively on every success.
 *
 * @param decrease the factor a 429 or overload multiplies it by, in (0, 1)
 * @param increasePerSuccess what each successful answer adds back, in (0, 1]
 * @param floor the lowest it goes, in (0, 1]
 * @param perDimension true keeps one multiplier per limited rate (requests, input tokens, ...) and
 *     cuts only the one the provider named; false shares one across all rates
 */
public record MultiplierConfig(double decrease, double increasePerSuccess, double floor, boolean perDimension) {

    /**
     * x0.65: three consecutive cuts take a deployment from full rate to about a quarter, deep enough
     * to clear a provider window emptied by a burst, shallow enough that one stray 429 costs a third.
     */
    public static final double DEFAULT_DECREASE = 0.65;

    /** +0.03 per success: about a dozen clean answers undo one cut, so recovery follows the provider's pace. */
    public static final double DEFAULT_INCREASE_PER_SUCCESS = 0.03;

    /** 0.20: below a fifth of the configured rate the deployment is better served by shedding than by pacing. */
    public static final double DEFAULT_FLOOR = 0.20;

    public MultiplierConfig {
        ConfigException.require(decrease > 0 && decrease < 1, "decrease", "in (0, 1)", decrease);
        ConfigException.require(increasePerSuccess > 0 && increasePerSuccess <= 1, "increase_per_success",
                "in (0, 1]", increasePerSuccess);
        ConfigException.require(floor > 0 && floor <= 1, "floor", "in (0, 1]", floor);
    }

    /** The documented defaults: x0.65, +0.03, floor 0.20, shared. */
    public static MultiplierConfig defaults() {
        return new MultiplierConfig(DEFAULT_DECREASE, DEFAULT_INCREASE_PER_SUCCESS, DEFAULT_FLOOR, false);
    }
}
