package dev.sluice.runtime.config;

import dev.sluice.adapt.CooldownConfig;
import dev.sluice.adapt.MultiplierConfig;
import dev.sluice.adapt.SheddingConfig;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * How a deployment's admitted rate follows what the provider signals: multiplied by
 * {@code decreaseFactor} after a rejection, raised by {@code increaseStep} per healthy interval,
 * never below {@code floor} of the configured limits; load shedding only after
 * {@code shedAfterRefusals} fresh provider refusals within {@code shedWithin}; a 429 naming a rate
 * pauses that rate at most {@code rateWindow}; an overload pauses at most {@code faultMax}, then
 * probes; once {@code cleanRecoveryAfter} has passed without a fresh refusal, every further clean
 * second adds {@code increasePerCleanSecond}. Defaults and their reasons: {@link CooldownConfig},
 * {@link SheddingConfig}, {@link MultiplierConfig}.
 */
public record AdaptiveSettings(boolean enabled, double decreaseFactor, double increaseStep, double floor,
        int shedAfterRefusals, Duration shedWithin, Duration rateWindow, Duration faultMax,
        Duration cleanRecoveryAfter, double increasePerCleanSecond) {

    public static final double DEFAULT_DECREASE_FACTOR = 0.65;
    public static final double DEFAULT_INCREASE_STEP = 0.03;
    public static final double DEFAULT_FLOOR = 0.20;

    public AdaptiveSettings {
        Objects.requireNonNull(shedWithin, "shedWithin");
        Objects.requireNonNull(rateWindow, "rateWindow");
        Objects.requireNonNull(faultMax, "faultMax");
        Objects.requireNonNull(cleanRecoveryAfter, "cleanRecoveryAfter");
        ConfigException.require(decreaseFactor > 0 && decreaseFactor < 1, "decrease_factor", "in (0, 1)",
                decreaseFactor);
        ConfigException.require(increaseStep > 0 && increaseStep <= 1, "increase_step", "in (0, 1]", increaseStep);
        ConfigException.require(floor > 0 && floor <= 1, "floor", "in (0, 1]", floor);
        ConfigException.require(shedAfterRefusals >= 1, "shed_after_refusals", ">= 1", shedAfterRefusals);
        ConfigException.require(shedWithin.isPositive(), "shed_within", "> 0", shedWithin);
        ConfigException.require(rateWindow.isPositive(), "rate_window", "> 0", rateWindow);
        ConfigException.require(faultMax.isPositive() && faultMax.compareTo(CooldownConfig.DEFAULT_MAX) <= 0,
                "fault_max", "> 0 and <= " + CooldownConfig.DEFAULT_MAX, faultMax);
        ConfigException.require(!cleanRecoveryAfter.isNegative(), "clean_recovery_after", ">= 0", cleanRecoveryAfter);
        ConfigException.require(increasePerCleanSecond >= 0 && increasePerCleanSecond <= 1,
                "increase_per_clean_second", "in [0, 1]", increasePerCleanSecond);
    }

    public static AdaptiveSettings defaults() {
        return new AdaptiveSettings(true, DEFAULT_DECREASE_FACTOR, DEFAULT_INCREASE_STEP, DEFAULT_FLOOR,
                SheddingConfig.DEFAULT_REFUSALS, SheddingConfig.DEFAULT_WITHIN, CooldownConfig.DEFAULT_RATE_WINDOW,
                CooldownConfig.DEFAULT_FAULT_MAX, MultiplierConfig.DEFAULT_CLEAN_RECOVERY_AFTER,
                MultiplierConfig.DEFAULT_INCREASE_PER_CLEAN_SECOND);
    }
}
