package dev.sluice.adapt;

import dev.sluice.ramp.RampStep;
import java.util.Objects;

/**
 * A deployment's ramp moved to another stage.
 *
 * @param deployment the deployment
 * @param step the move: stages, target fraction, reason and time
 */
public record RampChanged(String deployment, RampStep step) implements AdaptiveEvent {

    public RampChanged {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(step, "step");
    }

    @Override
    public long atNanos() {
        return step.atNanos();
    }
}
