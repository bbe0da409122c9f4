package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import dev.sluice.ramp.RampConfig;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Staged ramp-up of a deployment's admitted rate: each stage a fraction of the configured limits,
 * ascending, the last one 1.0; a stage is held {@code stageDuration} with at least
 * {@code minSamples} answers before the next, and the admitted fraction rises by at most
 * {@code maxGrowthPerMinute} of the limits a minute. Defaults and their reasons:
 * {@link RampConfig}.
 */
public record RampSettings(boolean enabled, List<Double> stages, Duration stageDuration, int minSamples,
        double maxGrowthPerMinute) {

    public static final List<Double> DEFAULT_STAGES = RampConfig.DEFAULT_STAGES;

    public RampSettings {
        stages = List.copyOf(stages);
        Objects.requireNonNull(stageDuration, "stageDuration");
        ConfigException.require(!stages.isEmpty(), "stages", "at least one stage", "none");
        double prev = 0;
        for (int i = 0; i < stages.size(); i++) {
            double s = stages.get(i);
            ConfigException.require(s > prev && s <= 1, "stages[" + i + "]", "ascending, in (0, 1]", s);
            prev = s;
        }
        ConfigException.require(prev == 1.0, "stages[" + (stages.size() - 1) + "]", "1.0 as the last stage", prev);
        ConfigException.require(stageDuration.isPositive(), "stage_duration", "> 0", stageDuration);
        ConfigException.require(minSamples >= 1, "min_samples", ">= 1", minSamples);
        ConfigException.require(maxGrowthPerMinute > 0 && Double.isFinite(maxGrowthPerMinute),
                "max_growth_per_minute", "> 0", maxGrowthPerMinute);
    }

    /** Off by default: a new deployment starts at its configured limits. */
    public static RampSettings defaults() {
        return new RampSettings(false, DEFAULT_STAGES, RampConfig.DEFAULT_STAGE_DURATION,
                RampConfig.DEFAULT_MIN_SAMPLES, RampConfig.DEFAULT_MAX_GROWTH_PER_MINUTE);
    }

    /** The ramp's configuration in the core. */
    public RampConfig rampConfig() {
        return RampConfig.defaults().withEnabled(enabled).withStages(stages).withStageDuration(stageDuration)
                .withMinSamples(minSamples).withMaxGrowthPerMinute(maxGrowthPerMinute);
    }
}
