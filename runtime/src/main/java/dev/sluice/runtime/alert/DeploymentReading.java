package dev.sluice.runtime.alert;

import java.util.Map;
import java.util.Objects;

/**
 * What the alert rules read of one deployment at one evaluation.
 *
 * @param deployment its id
 * @param attempts provider attempts ended since the last evaluation
 * @param throttled of those, refused by the provider with a 429
 * @param queued requests waiting for it now, over every class
 * @param bucketLevels its bucket's level over capacity per token dimension ({@code input_tpm} ...), now
 * @param estimatedInput estimated input tokens of the attempts with a provider-reported usage since the last evaluation
 * @param actualInput the provider-reported input of those attempts
 * @param mode its adaptive mode ({@code normal}, {@code caution}, {@code brownout}, {@code load_shedding})
 * @param paused whether a cooldown pauses any of its rates now
 * @param rampStage its ramp's stage
 * @param rampFraction its ramp's fraction of the target (1 when not ramping)
 */
public record DeploymentReading(String deployment, long attempts, long throttled, int queued,
        Map<String, Double> bucketLevels, long estimatedInput, long actualInput, String mode, boolean paused,
        int rampStage, double rampFraction) {

    public DeploymentReading {
        Objects.requireNonNull(deployment, "deployment");
        bucketLevels = Map.copyOf(bucketLevels);
        Objects.requireNonNull(mode, "mode");
    }
}
