package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.util.List;

/**
 * Staged ramp-up of a deployment's admitted rate: each stage a fraction of the configured limits,
 * ascending, the last one 1.0.
 */
public record RampSettings(boolean enabled, List<Double> stages) {

    public static final List<Double> DEFAULT_STAGES = List.of(0.10, 0.25, 0.50, 1.0);

    public RampSettings {
        stages = List.copyOf(stages);
        ConfigException.require(!stages.isEmpty(), "stages", "at least one stage", "none");
        double prev = 0;
        for (int i = 0; i < stages.size(); i++) {
            double s = stages.get(i);
            ConfigException.require(s > prev && s <= 1, "stages[" + i + "]", "ascending, in (0, 1]", s);
            prev = s;
        }
        ConfigException.require(prev == 1.0, "stages[" + (stages.size() - 1) + "]", "1.0 as the last stage", prev);
    }

    /** Off by default: a new deployment starts at its configured limits. */
    public static RampSettings defaults() {
        return new RampSettings(false, DEFAULT_STAGES);
    }
}
