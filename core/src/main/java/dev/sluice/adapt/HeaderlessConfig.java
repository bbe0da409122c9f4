package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * Learning a deployment's real capacity when it gives no limit figures: at a fresh 429 the
 * fraction of recent requests that succeeded, times the rate they were sent at, becomes a ceiling
 * on the multiplier (and the ceiling drops by at least {@code ceilingDecrease}); the ceiling climbs
 * back slowly while answers are clean.
 *
 * @param headerMemory a deployment counts as giving limit figures for this long after the last one
 * @param ceilingDecrease the ceiling is at least multiplied by this at a fresh 429, in (0, 1]
 * @param ceilingRecoveryPerMinute how fast the learned ceiling rises while the window is clean and the
 *     deployment is not shedding load
 *     (fraction of the configured rate per minute)
 * @param cleanRatio the window counts as clean below this 429 ratio
 */
public record HeaderlessConfig(Duration headerMemory, double ceilingDecrease, double ceilingRecoveryPerMinute,
        double cleanRatio) {

    /** Five minutes: vendors send figures on every answer, so five quiet minutes mean they stopped. */
    public static final Duration DEFAULT_HEADER_MEMORY = Duration.ofMinutes(5);

    /**
     * x0.95: the successful share is an exact estimate only when the whole window ran at the limit;
     * a provider bucket that absorbed a small excess for long refuses few requests, so the estimate
     * alone would leave the ceiling just above the real limit. A 5% step settles below it.
     */
    public static final double DEFAULT_CEILING_DECREASE = 0.95;

    /**
     * 5% of the configured rate per minute: a limit that came back is found again within minutes,
     * while a probe past the real limit drains the provider's bucket slowly enough that only a few
     * requests are refused before the next cut.
     */
    public static final double DEFAULT_CEILING_RECOVERY_PER_MINUTE = 0.05;

    /** 1%: the same bar the ramp uses for a healthy deployment. */
    public static final double DEFAULT_CLEAN_RATIO = 0.01;

    public HeaderlessConfig {
        Objects.requireNonNull(headerMemory, "headerMemory");
        ConfigException.require(headerMemory.isPositive(), "header_memory", "> 0", headerMemory);
        ConfigException.require(ceilingDecrease > 0 && ceilingDecrease <= 1, "ceiling_decrease", "in (0, 1]",
                ceilingDecrease);
        ConfigException.require(ceilingRecoveryPerMinute >= 0 && Double.isFinite(ceilingRecoveryPerMinute),
                "ceiling_recovery_per_minute", ">= 0", ceilingRecoveryPerMinute);
        ConfigException.require(cleanRatio > 0 && cleanRatio <= 1, "clean_ratio", "in (0, 1]", cleanRatio);
    }

    /** The documented defaults. */
    public static HeaderlessConfig defaults() {
        return new HeaderlessConfig(DEFAULT_HEADER_MEMORY, DEFAULT_CEILING_DECREASE, DEFAULT_CEILING_RECOVERY_PER_MINUTE,
                DEFAULT_CLEAN_RATIO);
    }
}
