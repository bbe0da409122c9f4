package dev.sluice.store;

import java.util.concurrent.atomic.AtomicBoolean;

/** A reservation held in the in-memory store. Ends exactly once: settled, released or expired. */
final class MemoryLease implements LeaseHandle {

    private final String id;
    final BucketPlan[] plans;
    final MemoryBucket[] buckets;
    final long[] amounts;
    final long expiresAt;
    private final AtomicBoolean open = new AtomicBoolean(true);

    MemoryLease(String id, BucketPlan[] plans, MemoryBucket[] buckets, long[] amounts, long expiresAt) {
        this.id = id;
        this.plans = plans;
        this.buckets = buckets;
        this.amounts = amounts;
        this.expiresAt = expiresAt;
    }

    @Override
    public String id() {
        return id;
    }

    /** Marks the lease ended; true for the one caller that ended it. */
    boolean close() {
        return open.compareAndSet(true, false);
    }

    @Override
    public String toString() {
        return id;
    }
}
