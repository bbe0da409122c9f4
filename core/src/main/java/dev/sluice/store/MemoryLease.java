package dev.sluice.store;

/**
 * A reservation held in the in-memory store. Ends exactly once: settled, released or expired.
 * Open leases are linked into their {@link LeaseStripe}, whose lock guards the links and the
 * open flag.
 */
final class MemoryLease implements LeaseHandle {

    final MemoryBucket[] buckets;
    /** Per bucket {@code i}, the dimensions taken there as a bit set in bits {@code 8i} to {@code 8i + 7}. */
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
        return (int) (takenDims >>> (8 * i)) & 0xff;
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
