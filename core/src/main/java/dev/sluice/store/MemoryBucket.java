package dev.sluice.store;

import dev.sluice.limits.Dimension;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of one bucket in the in-memory store. Every field is guarded by the bucket's own
 * monitor, and no caller ever holds two buckets' monitors at once: requests of unrelated tenants
 * meet only for the few instructions it takes to check and take on a bucket they share.
 *
 * <p>A dimension's state sits together in two small arrays (its level and factor; its pause and
 * counters), so an admission touches a cache line or two per dimension rather than one per field:
 * with thousands of keys, memory traffic is most of the cost.
 */
final class MemoryBucket {

    private static final Dimension[] DIMS = Dimension.values();

    final String key;

    /**
     * Per dimension {@code d}: at {@code 2d} the level (rates: tokens available, negative is debt;
     * gauges: in flight; daily caps: used today), at {@code 2d + 1} the adaptive rate factor.
     */
    private final double[] v = new double[Dimension.COUNT * 2];
    /**
     * Per dimension {@code d}, from {@code 7d}: paused until, then the conservation counters
     * reserved, settled, refunded, expired, open, overage.
     */
    private final long[] n = new long[Dimension.COUNT * 7];
    private long lastRefill;
    private long day;
    private boolean initialised;

    MemoryBucket(String key) {
        this.key = key;
        for (int d = 0; d < Dimension.COUNT; d++) {
            v[2 * d + 1] = 1.0;
        }
    }

    /**
     * Brings rates up to {@code now} and rolls daily caps over to {@code today} (ignored when the
     * plan has no daily cap); call with the lock held.
     */
    void refill(BucketPlan plan, long now, long today) {
        if (!initialised) {
            // A new bucket starts full: nothing has been used yet.
            for (int d : plan.dimensionOrdinals()) {
                if (DIMS[d].kind() == Dimension.Kind.RATE) {
                    v[2 * d] = plan.capacity(DIMS[d]);
                }
            }
            lastRefill = now;
            day = today;
            initialised = true;
            return;
        }
        long elapsed = now - lastRefill;
        if (elapsed > 0) {
            for (int d : plan.dimensionOrdinals()) {
                if (DIMS[d].kind() != Dimension.Kind.RATE) {
                    continue;
                }
                double cap = plan.capacity(DIMS[d]) * v[2 * d + 1];
                long from = Math.max(lastRefill, Math.min(now, n[7 * d]));
                long refillNanos = now - from;
                double next = v[2 * d] + refillNanos * plan.refillPerNano(DIMS[d]) * v[2 * d + 1];
                v[2 * d] = Math.min(cap, next);
            }
            lastRefill = now;
        }
        if (plan.hasDailyCap() && today != day) {
            for (int d : plan.dimensionOrdinals()) {
                if (DIMS[d].kind() == Dimension.Kind.DAILY) {
                    v[2 * d] = 0;
                }
            }
            day = today;
        }
    }

    /**
     * Whether {@code need} fits on dimension {@code d} now; if not, the shortfall. Call after
     * {@link #refill}, with the lock held.
     */
    ReserveOutcome.Short check(BucketPlan plan, int pathIndex, int d, long need, long now, InMemoryQuotaStore store) {
        Dimension dim = DIMS[d];
        long cap = plan.capacity(dim);
        switch (dim.kind()) {
            case RATE -> {
                if (need > cap) {
                    return shortOf(plan, pathIndex, dim, ReserveOutcome.Short.UNKNOWN_WAIT, true, false, need);
                }
                long pause = Math.max(0, n[7 * d] - now);
                // A request larger than the adapted capacity goes when the bucket is full and leaves debt.
                double required = Math.min(need, cap * v[2 * d + 1]);
                if (pause == 0 && v[2 * d] >= required - 1e-9) {
                    return null;
                }
                double rate = plan.refillPerNano(dim) * v[2 * d + 1];
                double deficit = Math.max(0, required - v[2 * d]);
                long wait = pause + (long) Math.ceil(deficit / rate);
                return shortOf(plan, pathIndex, dim, wait, false, false, need);
            }
            case GAUGE -> {
                if (need > cap) {
                    return shortOf(plan, pathIndex, dim, ReserveOutcome.Short.UNKNOWN_WAIT, true, false, need);
                }
                if (v[2 * d] + need <= cap) {
                    return null;
                }
                return shortOf(plan, pathIndex, dim, ReserveOutcome.Short.UNKNOWN_WAIT, false, false, need);
            }
            case DAILY -> {
                if (need > cap) {
                    return shortOf(plan, pathIndex, dim, store.nanosToMidnight(), true, true, need);
                }
                if (v[2 * d] + need <= cap) {
                    return null;
                }
                return shortOf(plan, pathIndex, dim, store.nanosToMidnight(), false, true, need);
            }
            default -> throw new IllegalStateException(dim.name());
        }
    }

    private ReserveOutcome.Short shortOf(BucketPlan plan, int pathIndex, Dimension dim, long wait, boolean never,
            boolean daily, long need) {
        return new ReserveOutcome.Short(pathIndex, plan.scope(), dim, wait, never, daily,
                (long) Math.floor(available(plan, dim.ordinal())), need, plan.capacity(dim));
    }

    /** Takes {@code amount} on dimension {@code d}; the caller has checked that it fits. */
    void take(int d, long amount) {
        if (DIMS[d].kind() == Dimension.Kind.RATE) {
            v[2 * d] -= amount;
        } else {
            v[2 * d] += amount;
        }
        n[7 * d + 1] += amount;
        n[7 * d + 5] += amount;
    }

    /**
     * Undoes {@link #take} for a reservation that failed on another bucket of its path, as if it
     * had never been made. A rate never ends above its capacity.
     */
    void untake(BucketPlan plan, int d, long amount) {
        if (DIMS[d].kind() == Dimension.Kind.RATE) {
            v[2 * d] = Math.min(plan.capacity(DIMS[d]) * v[2 * d + 1], v[2 * d] + amount);
        } else {
            v[2 * d] -= amount;
        }
        n[7 * d + 1] -= amount;
        n[7 * d + 5] -= amount;
    }

    /** Ends a lease's hold on {@code d}: {@code reservedAmount} becomes {@code actual} (rates, daily caps). */
    void settle(BucketPlan plan, int d, long reservedAmount, long actual) {
        n[7 * d + 5] -= reservedAmount;
        long kept = Math.min(actual, reservedAmount);
        long back = reservedAmount - kept;
        long extra = actual - kept;
        n[7 * d + 2] += kept;
        n[7 * d + 3] += back;
        n[7 * d + 6] += extra;
        switch (DIMS[d].kind()) {
            // A refund never lifts a bucket above its capacity: unused tokens do not add burst.
            case RATE -> v[2 * d] = Math.min(plan.capacity(DIMS[d]) * v[2 * d + 1], v[2 * d] + reservedAmount - actual);
            case GAUGE -> v[2 * d] -= reservedAmount;
            case DAILY -> v[2 * d] = Math.max(0, v[2 * d] + actual - reservedAmount);
        }
    }

    /** Ends a lease that was never settled: rates and daily caps keep the estimate, gauges are freed. */
    void expire(int d, long reservedAmount) {
        n[7 * d + 5] -= reservedAmount;
        n[7 * d + 4] += reservedAmount;
        if (DIMS[d].kind() == Dimension.Kind.GAUGE) {
            v[2 * d] -= reservedAmount;
        }
    }

    void control(int d, double rateFactor, long pauseNanos, long now) {
        v[2 * d + 1] = rateFactor;
        n[7 * d] = pauseNanos > 0 ? now + pauseNanos : 0;
    }

    void syncDown(int d, long remaining) {
        if (DIMS[d].kind() == Dimension.Kind.RATE) {
            v[2 * d] = Math.min(v[2 * d], remaining);
        }
    }

    private double available(BucketPlan plan, int d) {
        long cap = plan.capacity(DIMS[d]);
        return DIMS[d].kind() == Dimension.Kind.RATE ? v[2 * d] : cap - v[2 * d];
    }

    BucketState state(BucketPlan plan, long now) {
        List<BucketState.DimensionState> dims = new ArrayList<>();
        for (int d : plan.dimensionOrdinals()) {
            dims.add(new BucketState.DimensionState(DIMS[d], available(plan, d), plan.capacity(DIMS[d]), v[2 * d + 1],
                    Math.max(0, n[7 * d] - now), n[7 * d + 1], n[7 * d + 2], n[7 * d + 3], n[7 * d + 4], n[7 * d + 5],
                    n[7 * d + 6]));
        }
        return new BucketState(key, dims);
    }
}
