package dev.sluice.governor;

import java.util.Arrays;
import java.util.Objects;

/**
 * What one replica has queued for one deployment: per traffic class (by
 * {@link TrafficClass#ordinal()}), the summed configured-rate cost of its waiters in nanoseconds of
 * the deployment's scarcest rate, the unit fair order and wait prediction use. Replicas of one fleet
 * share configuration, so their costs add up.
 *
 * @param deployment the provider deployment id
 * @param costNanosByClass one entry per traffic class, none negative (copied in and out)
 */
public record QueuedDemand(String deployment, long[] costNanosByClass) {

    public QueuedDemand {
        Objects.requireNonNull(deployment, "deployment");
        costNanosByClass = costNanosByClass.clone();
        if (costNanosByClass.length != TrafficClass.values().length) {
            throw new IllegalArgumentException("costNanosByClass: " + costNanosByClass.length
                    + " entries (expected: one per class)");
        }
    }

    @Override
    public long[] costNanosByClass() {
        return costNanosByClass.clone();
    }

    /** The cost queued over every class. */
    public long totalNanos() {
        return Arrays.stream(costNanosByClass).sum();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QueuedDemand q && q.deployment.equals(deployment)
                && Arrays.equals(q.costNanosByClass, costNanosByClass);
    }

    @Override
    public int hashCode() {
        return deployment.hashCode() * 31 + Arrays.hashCode(costNanosByClass);
    }

    @Override
    public String toString() {
        return "QueuedDemand[" + deployment + ", " + Arrays.toString(costNanosByClass) + "]";
    }
}
