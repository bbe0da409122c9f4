package dev.sluice.ramp;

import java.util.Objects;

/**
 * The ramp moved from one stage to another.
 *
 * @param fromStage the stage index before
 * @param toStage the stage index after
 * @param target the fraction of the target capacity that the new stage aims at
 * @param reason why, in a few words ({@code "stage clean for 10 s"}, {@code "429 ratio 0.050 >= 0.010"})
 * @param atNanos when, on the governor's clock
 */
public record RampStep(int fromStage, int toStage, double target, String reason, long atNanos) {

    public RampStep {
        Objects.requireNonNull(reason, "reason");
    }

    /** Whether the ramp moved up. */
    public boolean advanced() {
        return toStage > fromStage;
    }
}
