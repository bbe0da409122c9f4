package dev.sluice.store;

import dev.sluice.limits.Dimension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The state of one bucket in the in-memory store. Every field is guarded by {@link #lock}, and no
 * caller ever holds two buckets' locks at once: requests of unrelated tenants meet only for the
 * few instructions it takes to check and take on a bucket they share.
 */
final class MemoryBucket {

    private static final Dimension[] DIMS = Dimension.values();

    final ReentrantLock lock = new ReentrantLock();
    final String key;

    /** Rates: tokens available (negative is debt). Gauges: in flight. Daily caps: used today. */
    private final double[] level = new double[Dimension.COUNT];
    private final double[] factor = new double[Dimension.COUNT];
    private final long[] pausedUntil = new long[Dimension.COUNT];
    private long lastRefill;
    private long day;
    private boolean initialised;

    private final long[] reserved = new long[Dimension.COUNT];
    private final long[] settled = new long[Dimension.COUNT];
    private final long[] refunded = new long[Dimension.COUNT];
    private final long[] expired = new long[Dimension.COUNT];
    private final long[] open = new long[Dimension.COUNT];
    private final long[] overage = new long[Dimension.COUNT];

    MemoryBucket(String key) {
        this.key = key;
        java.util.Arrays.fill(factor, 1.0);
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
                    level[d] = plan.capacity(DIMS[d]);
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
                double cap = plan.capacity(DIMS[d]) * factor[d];
                long from = Math.max(lastRefill, Math.min(now, pausedUntil[d]));
                long refillNanos = now - from;
                double next = level[d] + refillNanos * plan.refillPerNano(DIMS[d]) * factor[d];
                level[d] = Math.min(cap, next);
            }
            lastRefill = now;
        }
        if (plan.hasDailyCap() && today != day) {
            for (int d : plan.dimensionOrdinals()) {
                if (DIMS[d].kind() == Dimension.Kind.DAILY) {
                    level[d] = 0;
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
                long pause = Math.max(0, pausedUntil[d] - now);
                // A request larger than the adapted capacity goes when the bucket is full and leaves debt.
                double required = Math.min(need, cap * factor[d]);
                if (pause == 0 && level[d] >= required - 1e-9) {
                    return null;
                }
                double rate = plan.refillPerNano(dim) * factor[d];
                double deficit = Math.max(0, required - level[d]);
                long wait = pause + (long) Math.ceil(deficit / rate);
                return shortOf(plan, pathIndex, dim, wait, false, false, need);
            }
            case GAUGE -> {
                if (need > cap) {
                    return shortOf(plan, pathIndex, dim, ReserveOutcome.Short.UNKNOWN_WAIT, true, false, need);
                }
                if (level[d] + need <= cap) {
                    return null;
                }
                return shortOf(plan, pathIndex, dim, ReserveOutcome.Short.UNKNOWN_WAIT, false, false, need);
            }
            case DAILY -> {
                if (need > cap) {
                    return shortOf(plan, pathIndex, dim, store.nanosToMidnight(), true, true, need);
                }
                if (level[d] + need <= cap) {
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
            level[d] -= amount;
        } else {
            level[d] += amount;
        }
        reserved[d] += amount;
        open[d] += amount;
    }

    /**
     * Undoes {@link #take} for a reservation that failed on another bucket of its path, as if it
     * had never been made. A rate never ends above its capacity.
     */
    void untake(BucketPlan plan, int d, long amount) {
        if (DIMS[d].kind() == Dimension.Kind.RATE) {
            level[d] = Math.min(plan.capacity(DIMS[d]) * factor[d], level[d] + amount);
        } else {
            level[d] -= amount;
        }
        reserved[d] -= amount;
        open[d] -= amount;
    }

    /** Ends a lease's hold on {@code d}: {@code reservedAmount} becomes {@code actual} (rates, daily caps). */
    void settle(BucketPlan plan, int d, long reservedAmount, long actual) {
        open[d] -= reservedAmount;
        long kept = Math.min(actual, reservedAmount);
        long back = reservedAmount - kept;
        long extra = actual - kept;
        settled[d] += kept;
        refunded[d] += back;
        overage[d] += extra;
        switch (DIMS[d].kind()) {
            // A refund never lifts a bucket above its capacity: unused tokens do not add burst.
            case RATE -> level[d] = Math.min(plan.capacity(DIMS[d]) * factor[d], level[d] + reservedAmount - actual);
            case GAUGE -> level[d] -= reservedAmount;
            case DAILY -> level[d] = Math.max(0, level[d] + actual - reservedAmount);
        }
    }

    /** Ends a lease that was never settled: rates and daily caps keep the estimate, gauges are freed. */
    void expire(int d, long reservedAmount) {
        open[d] -= reservedAmount;
        expired[d] += reservedAmount;
        if (DIMS[d].kind() == Dimension.Kind.GAUGE) {
            level[d] -= reservedAmount;
        }
    }

    void control(int d, double rateFactor, long pauseNanos, long now) {
        factor[d] = rateFactor;
        pausedUntil[d] = pauseNanos > 0 ? now + pauseNanos : 0;
    }

    void syncDown(int d, long remaining) {
        if (DIMS[d].kind() == Dimension.Kind.RATE) {
            level[d] = Math.min(level[d], remaining);
        }
    }

    private double available(BucketPlan plan, int d) {
        long cap = plan.capacity(DIMS[d]);
        return DIMS[d].kind() == Dimension.Kind.RATE ? level[d] : cap - level[d];
    }

    BucketState state(BucketPlan plan, long now) {
        List<BucketState.DimensionState> dims = new ArrayList<>();
        for (int d : plan.dimensionOrdinals()) {
            dims.add(new BucketState.DimensionState(DIMS[d], available(plan, d), plan.capacity(DIMS[d]), factor[d],
                    Math.max(0, pausedUntil[d] - now), reserved[d], settled[d], refunded[d], expired[d], open[d],
                    overage[d]));
        }
        return new BucketState(key, dims);
    }
}
