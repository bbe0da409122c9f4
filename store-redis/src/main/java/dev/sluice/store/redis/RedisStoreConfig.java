package dev.sluice.store.redis;

import dev.sluice.time.NanoClock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * How a {@link RedisQuotaStore} names and reaches its state.
 *
 * @param namespace prefix of every key and the default hash tag: replicas sharing quotas use the
 *     same one; letters, digits, {@code -_.:} only
 * @param dailyResetZone daily caps reset at midnight in this zone
 * @param testClock empty in production: time is the Redis server's ({@code TIME} inside every
 *     script), so replicas with skewed clocks agree. A clock here is passed into each script
 *     instead, for tests and the simulator that run on virtual time. All replicas of a namespace
 *     must use the same kind of time.
 * @param grouping which hash tag each bucket's keys carry
 * @param commandTimeout a call that has no answer after this long fails with
 *     {@link StoreUnavailableException}
 * @param reconnectDelay wait between reconnection attempts after Redis went away
 * @param reclaimOnReserve expired leases of the touched group ended inside each reservation
 *     before it checks capacity, so a dead replica's leases come back without a sweep; 0 for none
 * @param replicaId this replica's name, unique among live replicas; part of every lease id
 */
public record RedisStoreConfig(String namespace, ZoneId dailyResetZone, Optional<NanoClock> testClock,
        SlotGrouping grouping, Duration commandTimeout, Duration reconnectDelay, int reclaimOnReserve,
        String replicaId) {

    /** Half a second: several Redis round trips on a slow network, far below any client timeout. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMillis(500);

    /** Reconnect quickly: while Redis is away every admission takes the failure policy. */
    public static final Duration DEFAULT_RECONNECT_DELAY = Duration.ofMillis(100);

    /** Enough to keep up with crashed replicas without making one admission slow. */
    public static final int DEFAULT_RECLAIM_ON_RESERVE = 8;

    public RedisStoreConfig {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(dailyResetZone, "dailyResetZone");
        Objects.requireNonNull(testClock, "testClock");
        Objects.requireNonNull(grouping, "grouping");
        Objects.requireNonNull(commandTimeout, "commandTimeout");
        Objects.requireNonNull(reconnectDelay, "reconnectDelay");
        Objects.requireNonNull(replicaId, "replicaId");
        if (!namespace.matches("[A-Za-z0-9_.:-]+")) {
            throw new IllegalArgumentException("namespace: '" + namespace + "' (expected: letters, digits, -_.: only)");
        }
        if (!commandTimeout.isPositive()) {
            throw new IllegalArgumentException("commandTimeout: " + commandTimeout + " (expected: > 0)");
        }
        if (reconnectDelay.isNegative() || reconnectDelay.isZero()) {
            throw new IllegalArgumentException("reconnectDelay: " + reconnectDelay + " (expected: > 0)");
        }
        if (reclaimOnReserve < 0) {
            throw new IllegalArgumentException("reclaimOnReserve: " + reclaimOnReserve + " (expected: >= 0)");
        }
        if (!replicaId.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("replicaId: '" + replicaId + "' (expected: letters, digits, -_. only)");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RedisStoreConfig}; every field has a default. */
    public static final class Builder {
        private String namespace = "sluice";
        private ZoneId zone = ZoneOffset.UTC;
        private Optional<NanoClock> testClock = Optional.empty();
        private SlotGrouping grouping = SlotGrouping.single();
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration reconnectDelay = DEFAULT_RECONNECT_DELAY;
        private int reclaimOnReserve = DEFAULT_RECLAIM_ON_RESERVE;
        private String replicaId = UUID.randomUUID().toString().substring(0, 13);

        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        public Builder dailyResetZone(ZoneId zone) {
            this.zone = zone;
            return this;
        }

        /** Runs the store on {@code clock} instead of the server's time; for tests and simulation. */
        public Builder testClock(NanoClock clock) {
            this.testClock = Optional.of(clock);
            return this;
        }

        public Builder grouping(SlotGrouping grouping) {
            this.grouping = grouping;
            return this;
        }

        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = timeout;
            return this;
        }

        public Builder reconnectDelay(Duration delay) {
            this.reconnectDelay = delay;
            return this;
        }

        public Builder reclaimOnReserve(int leases) {
            this.reclaimOnReserve = leases;
            return this;
        }

        public Builder replicaId(String id) {
            this.replicaId = id;
            return this;
        }

        public RedisStoreConfig build() {
            return new RedisStoreConfig(namespace, zone, testClock, grouping, commandTimeout, reconnectDelay,
                    reclaimOnReserve, replicaId);
        }
    }
}
