package dev.sluice.adapt;

import dev.sluice.limits.Dimension;
import java.util.List;
import java.util.Objects;

/**
 * Admission to a deployment's rates was paused (or a pause was extended).
 *
 * @param deployment the deployment
 * @param dimensions the paused rates; all of the deployment's rates when the provider named none
 * @param pauseNanos how long from {@code atNanos}
 * @param reason the provider's reason code ({@code rate_limited}, {@code overloaded}, ...)
 * @param atNanos when, on the governor's clock
 */
public record CooldownStarted(String deployment, List<Dimension> dimensions, long pauseNanos, String reason,
        long atNanos) implements AdaptiveEvent {

    public CooldownStarted {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(reason, "reason");
        dimensions = List.copyOf(dimensions);
    }
}
