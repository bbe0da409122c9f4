package dev.sluice.adapt;

import dev.sluice.limits.Dimension;
import java.util.Objects;

/**
 * The provider said less capacity remains than the deployment's bucket believed, and the bucket
 * was lowered to the provider's figure.
 *
 * @param deployment the deployment
 * @param dimension the rate concerned
 * @param believed what the bucket held before
 * @param remaining what the provider said remains (the bucket now holds at most this)
 * @param atNanos when, on the governor's clock
 */
public record CapacitySynced(String deployment, Dimension dimension, long believed, long remaining, long atNanos)
        implements AdaptiveEvent {

    public CapacitySynced {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(dimension, "dimension");
    }
}
