package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;

/**
 * How a deployment's admitted rate follows what the provider signals: multiplied by
 * {@code decreaseFactor} after a rejection, raised by {@code increaseStep} per healthy interval,
 * never below {@code floor} of the configured limits.
 */
public record AdaptiveSettings(boolean enabled, double decreaseFactor, double increaseStep, double floor) {

    public static final double DEFAULT_DECREASE_FACTOR = 0.65;
    public static final double DEFAULT_INCREASE_STEP = 0.03;
    public static final double DEFAULT_FLOOR = 0.20;

    public AdaptiveSettings {
        ConfigException.require(decreaseFactor > 0 && decreaseFactor < 1, "decrease_factor", "in (0, 1)",
                decreaseFactor);
        ConfigException.require(increaseStep > 0 && increaseStep <= 1, "increase_step", "in (0, 1]", increaseStep);
        ConfigException.require(floor > 0 && floor <= 1, "floor", "in (0, 1]", floor);
    }

    public static AdaptiveSettings defaults() {
        return new AdaptiveSettings(true, DEFAULT_DECREASE_FACTOR, DEFAULT_INCREASE_STEP, DEFAULT_FLOOR);
    }
}
