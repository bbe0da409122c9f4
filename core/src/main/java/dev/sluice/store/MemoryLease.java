package dev.sluice.store;

import java.util.concurrent.atomic.AtomicBoolean;

/** A reservation held in the in-memory store. Ends exactly once: settled, released or expired. */
final class MemoryLease implements LeaseHandle {

    private final long serial;
    final BucketPlan[] plans;
    final MemoryBucket[] buckets;
    final long[] amounts;
    final long expiresAt;
    private final AtomicBoolean open = new AtomicBoolean(true);

    MemoryLease(long serial, BucketPlan[] plans, MemoryBucket[] buckets, long[] amounts, long expiresAt) {
        this.serial = serial;
        this.plans = plans;
        this.buckets = buckets;
        this.amounts = amounts;
        this.expiresAt = expiresAt;
    }

    @Override
    public String id() {
        return "m" + serial;
    }

    /** Marks the lease ended; true for the one caller that ended it. */
    boolean close() {
        return open.compareAndSet(true, false);
    }

    @Override
    public String toString() {
        return id();
    }
}
