package dev.sluice.store;

import dev.sluice.limits.Dimension;

/**
 * A reservation held in the in-memory store. Ends exactly once: settled, released or expired.
 * Open leases are linked into their {@link LeaseStripe}, whose lock guards the links and the
 * open flag.
 */
final class MemoryLease implements LeaseHandle {

    final MemoryBucket[] buckets;
    /** Bits per bucket in {@link #takenDims}: one per dimension. */
    static final int BITS = Dimension.COUNT;
    /** The most buckets one long holds at {@link #BITS} each. */
    static final int MAX_BUCKETS = Long.SIZE / BITS;
    private static final int MASK = (1 << BITS) - 1;

    /** Per bucket {@code i}, the dimensions taken there as a bit set in bits {@code BITS * i} to {@code BITS * i + BITS - 1}. */
    final long takenDims;
    final long[] amounts;
    final long expiresAt;
    final LeaseStripe stripe;
    long serial;
    boolean open = true;
    MemoryLease prev;
    MemoryLease next;

    MemoryLease(MemoryBucket[] buckets, long takenDims, long[] amounts, long expiresAt, LeaseStripe stripe) {
        this.buckets = buckets;
        this.takenDims = takenDims;
        this.amounts = amounts;
        this.expiresAt = expiresAt;
        this.stripe = stripe;
    }

    /** The dimensions taken on bucket {@code i}, as a bit set by ordinal. */
    int takenAt(int i) {
        return takenAt(takenDims, i);
    }

    /** The dimensions taken on bucket {@code i} in {@code takenDims}. */
    static int takenAt(long takenDims, int i) {
        return (int) (takenDims >>> (BITS * i)) & MASK;
    }

    @Override
    public String id() {
        return "m" + serial;
    }

    @Override
    public String toString() {
        return id();
    }
}
