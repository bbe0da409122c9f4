package dev.sluice.adapt;

import dev.sluice.limits.Dimension;
import java.util.Objects;

/**
 * The provider's limit figures consistently disagreed with the configured limit, and the
 * deployment now runs at the observed limit (never above the configured one).
 *
 * @param deployment the deployment
 * @param dimension the rate concerned
 * @param configuredPerMinute the configured limit
 * @param observedPerMinute the limit the provider reported, per minute
 * @param factor the fraction of the configured limit now in force, in (0, 1]
 * @param atNanos when, on the governor's clock
 */
public record LimitDrift(String deployment, Dimension dimension, long configuredPerMinute, long observedPerMinute,
        double factor, long atNanos) implements AdaptiveEvent {

    public LimitDrift {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(dimension, "dimension");
    }
}
