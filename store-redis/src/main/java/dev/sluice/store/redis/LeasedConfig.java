package dev.sluice.store.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * Leased mode's timing.
 *
 * @param leaseLength how long a granted share stays this replica's without renewal; a replica
 *     that cannot renew stops admitting when it ends, and Redis frees the share then
 * @param renewEvery how often a share in use is renewed (and rebalanced by demand)
 */
public record LeasedConfig(Duration leaseLength, Duration renewEvery) {

    /** Five seconds: long enough to ride out a Redis hiccup, short enough to free a dead replica's share soon. */
    public static final Duration DEFAULT_LEASE_LENGTH = Duration.ofSeconds(5);

    /** Once a second: shares follow demand within a couple of seconds, at one Redis call per bucket per second. */
    public static final Duration DEFAULT_RENEW_EVERY = Duration.ofSeconds(1);

    public LeasedConfig {
        Objects.requireNonNull(leaseLength, "leaseLength");
        Objects.requireNonNull(renewEvery, "renewEvery");
        if (!renewEvery.isPositive()) {
            throw new IllegalArgumentException("renewEvery: " + renewEvery + " (expected: > 0)");
        }
        if (leaseLength.compareTo(renewEvery) <= 0) {
            throw new IllegalArgumentException("leaseLength: " + leaseLength + " (expected: > renewEvery " + renewEvery + ")");
        }
    }

    public static LeasedConfig defaults() {
        return new LeasedConfig(DEFAULT_LEASE_LENGTH, DEFAULT_RENEW_EVERY);
    }
}
