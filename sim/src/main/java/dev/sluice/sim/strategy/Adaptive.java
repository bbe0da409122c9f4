package dev.sluice.sim.strategy;

import dev.sluice.adapt.AdaptiveConfig;
import dev.sluice.adapt.MultiplierConfig;
import dev.sluice.runtime.config.AdaptiveSettings;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.RampSettings;
import dev.sluice.ramp.RampConfig;

/** The adaptive package's tuning from a deployment's {@code adaptive:} and {@code ramp:} settings. */
public final class Adaptive {

    private Adaptive() {}

    /** Multiplier decrease, increase and floor from {@code adaptive}; ramp on/off and stages from {@code ramp}. */
    public static AdaptiveConfig config(DeploymentConfig d) {
        AdaptiveSettings a = d.adaptive();
        RampSettings r = d.ramp();
        AdaptiveConfig base = AdaptiveConfig.defaults();
        return base.withMultiplier(new MultiplierConfig(a.decreaseFactor(), a.increaseStep(), a.floor(),
                        base.multiplier().perDimension()))
                .withRamp(RampConfig.defaults().withEnabled(r.enabled()).withStages(r.stages()));
    }
}
