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
    /** The buckets one long holds at {@link #BITS} each. */
    static final int PER_WORD = Long.SIZE / BITS;
    /** The most buckets a lease records: two longs' worth, kept in fields so a lease allocates no array for them. */
    static final int MAX_BUCKETS = 2 * PER_WORD;
    private static final int MASK = (1 << BITS) - 1;

    /**
     * Per bucket {@code i < PER_WORD}, the dimensions taken there as a bit set in bits
     * {@code BITS * i} to {@code BITS * i + BITS - 1}; the buckets after those in {@link #takenDimsHigh}.
     */
    final long takenDims;
    final long takenDimsHigh;
    final long[] amounts;
    final long expiresAt;
    final LeaseStripe stripe;
    long serial;
    boolean open = true;
    MemoryLease prev;
    MemoryLease next;

    MemoryLease(MemoryBucket[] buckets, long takenDims, long takenDimsHigh, long[] amounts, long expiresAt,
            LeaseStripe stripe) {
        this.buckets = buckets;
        this.takenDims = takenDims;
        this.takenDimsHigh = takenDimsHigh;
        this.amounts = amounts;
        this.expiresAt = expiresAt;
        this.stripe = stripe;
    }

    /** The dimensions taken on bucket {@code i}, as a bit set by ordinal. */
    int takenAt(int i) {
        return takenAt(takenDims, takenDimsHigh, i);
    }

    /** The dimensions taken on bucket {@code i} in {@code low} and {@code high}. */
    static int takenAt(long low, long high, int i) {
        return i < PER_WORD ? (int) (low >>> (BITS * i)) & MASK : (int) (high >>> (BITS * (i - PER_WORD))) & MASK;
    }

    /** {@code word} with bucket {@code i}'s dimensions set, for the word that holds bucket {@code i}. */
    static long with(long word, int i, int dims) {
        return word | (long) dims << (BITS * (i < PER_WORD ? i : i - PER_WORD));
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
