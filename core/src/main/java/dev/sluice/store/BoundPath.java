package dev.sluice.store;

/**
 * A path of buckets bound to one store, for a caller that reserves on the same path again and
 * again: the store resolves once what it would otherwise look up on every call (its buckets, its
 * keys). Obtained from {@link QuotaStore#bind}; valid as long as the plans it was bound with.
 */
@FunctionalInterface
public interface BoundPath {

    /** Same as {@link QuotaStore#reserve} on the bound path. */
    ReserveOutcome reserve(long[] amounts, long leaseTtlNanos);

    /**
     * Same as {@link QuotaStore#reserve(BucketPlan[], long[], long, Headroom)} on the bound path.
     * The default, for a binding that keeps no headroom, ignores it.
     */
    default ReserveOutcome reserve(long[] amounts, long leaseTtlNanos, Headroom headroom) {
        return reserve(amounts, leaseTtlNanos);
    }
}
