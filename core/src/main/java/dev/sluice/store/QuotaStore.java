package dev.sluice.store;

import dev.sluice.limits.Dimension;

/**
 * Where quota state lives: bucket levels and debts, leases, concurrency slots, daily counts,
 * pauses and adaptive rate factors. The in-memory store is the default; a shared store lets
 * several gateway replicas enforce one set of limits.
 *
 * <p>The contract is shaped for a remote store: {@link #reserve} and {@link #settle} are each one
 * atomic step over the whole path (one round trip for a server-side script), and time is the
 * store's own (the in-memory store's injected clock, or the server's clock), so replicas with
 * skewed clocks agree. Amount vectors are indexed by {@link Dimension#ordinal()}.
 */
public interface QuotaStore extends AutoCloseable {

    /**
     * Reserves {@code amounts} on every bucket of {@code path}, or nothing at all. The path is
     * ordered outermost first and holds at most one bucket per level.
     *
     * @param leaseTtlNanos after this long an unsettled lease expires and gives back what it holds
     */
    ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos);

    /**
     * As {@link #reserve(BucketPlan[], long[], long)}, leaving {@code headroom} untouched on the
     * buckets it names: the part of shared capacity held back for higher classes. The stores
     * Sluice ships (in memory, Redis) keep it; the default, for a store that keeps no headroom
     * (a test double), ignores it.
     */
    default ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos, Headroom headroom) {
        return reserve(path, amounts, leaseTtlNanos);
    }

    /**
     * Binds {@code path} for repeated reservations. The default reserves through
     * {@link #reserve}; a store overrides it to resolve the path once.
     */
    default BoundPath bind(BucketPlan[] path) {
        BucketPlan[] plans = path.clone();
        return new BoundPath() {
            @Override
            public ReserveOutcome reserve(long[] amounts, long leaseTtlNanos) {
                return QuotaStore.this.reserve(plans, amounts, leaseTtlNanos);
            }

            @Override
            public ReserveOutcome reserve(long[] amounts, long leaseTtlNanos, Headroom headroom) {
                return QuotaStore.this.reserve(plans, amounts, leaseTtlNanos, headroom);
            }
        };
    }

    /**
     * Replaces the reserved amounts by actual usage: unused capacity is refunded, overage becomes
     * debt, concurrency is released. Idempotent: a second call changes nothing.
     */
    SettleOutcome settle(LeaseHandle lease, long[] actual);

    /** Gives everything back (the request never reached the provider). Idempotent. */
    SettleOutcome release(LeaseHandle lease);

    /** Ends every lease past its time to live; returns how many ended. */
    int expireLeases();

    /** How many leases are open. */
    int openLeases();

    /**
     * Applies adaptive control to one dimension of a bucket: refill (and capacity) scaled by
     * {@code rateFactor} in (0, 1], and admission paused for {@code pauseNanos} from now (0 lifts
     * a pause).
     */
    void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos);

    /** Lowers what the bucket believes is available to at most {@code remaining}; never raises it. */
    void syncDown(BucketPlan plan, Dimension dimension, long remaining);

    /** The bucket as it is now. */
    BucketState state(BucketPlan plan);

    @Override
    default void close() {}

    /**
     * Whether a call may wait on the network (a shared store): then a caller on an event loop
     * hands store calls to a worker thread. An in-memory store answers in microseconds.
     */
    default boolean waitsOnNetwork() {
        return false;
    }
}
