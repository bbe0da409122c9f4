package dev.sluice.store;

import dev.sluice.limits.Dimension;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of one bucket in the in-memory store. Every field is guarded by the bucket's own
 * {@link BriefLock}, and no caller ever holds two buckets' locks at once: requests of unrelated
 * tenants meet only for the few instructions it takes to check and take on a bucket they share.
 *
 * <p>With thousands of keys most of an admission's cost is fetching cold memory, so a bucket is
 * laid out to be fetched in as few cache lines as possible: one array holds, per dimension and
 * side by side, the plan's capacity and refill rate (copied in when the bucket first meets a
 * plan) and the bucket's level, factor, pause and counters. Checking and taking never reads the
 * plan object itself; it only compares it with the one adopted.
 */
final class MemoryBucket extends BriefLock {

    private static final Dimension[] DIMS = Dimension.values();
    private static final Dimension.Kind RATE = Dimension.Kind.RATE;
    private static final Dimension.Kind GAUGE = Dimension.Kind.GAUGE;
    private static final int RATE_DIMS = kindMask(RATE);
    private static final int GAUGE_DIMS = kindMask(GAUGE);
    private static final int DAILY_DIMS = kindMask(Dimension.Kind.DAILY);
    private static final int MONTHLY_DIMS = kindMask(Dimension.Kind.MONTHLY);

    // Slots of one dimension's run in s, the ones every check and take reads first.
    /** Rates: tokens available, negative is debt; gauges: in flight; daily and monthly caps: used so far. As double bits. */
    private static final int LEVEL = 0;
    /** Adaptive rate factor in (0, 1], as double bits. */
    private static final int FACTOR = 1;
    private static final int CAPACITY = 2;
    /** Configured refill per nanosecond, as double bits. */
    private static final int REFILL = 3;
    private static final int PAUSED_UNTIL = 4;
    // The conservation counters; what is open is reserved less the other three.
    private static final int RESERVED = 5;
    private static final int SETTLED = 6;
    private static final int REFUNDED = 7;
    private static final int EXPIRED = 8;
    private static final int OVERAGE = 9;
    private static final int STRIDE = 10;

    final String key;
    /**
     * One run of {@link #STRIDE} slots per dimension ever limited here, in ordinal order and
     * nothing for the others, so a bucket limiting four dimensions spans five or six cache lines.
     * Grows when a reload limits a new dimension; a dimension no longer limited keeps its run for
     * the leases still holding it.
     */
    private long[] s = new long[0];
    /** The plan whose capacities and rates are in {@link #s}; null until the first. */
    private BucketPlan plan;
    /** Bit {@code d} set: the adopted plan limits dimension {@code d}. */
    private int limited;
    /** Bit {@code d} set: dimension {@code d} has been limited at some point, so its level means something. */
    private int seen;
    private boolean hasDailyCap;
    private long lastRefill;
    private long day;

    MemoryBucket(String key) {
        this.key = key;
    }

    /** Where dimension {@code d}'s run starts in {@link #s}. */
    private int base(int d) {
        return Integer.bitCount(seen & ((1 << d) - 1)) * STRIDE;
    }

    /** Makes room for the dimensions of {@code dims} not seen before: a factor of 1, nothing held. */
    private void grow(int dims) {
        int next = seen | dims;
        if (next == seen) {
            return;
        }
        long[] grown = new long[Integer.bitCount(next) * STRIDE];
        int to = 0;
        for (int m = next; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            if ((seen & (1 << d)) != 0) {
                System.arraycopy(s, base(d), grown, to, STRIDE);
            } else {
                grown[to + FACTOR] = Double.doubleToRawLongBits(1.0);
            }
            to += STRIDE;
        }
        s = grown;
        seen = next;
    }

    /**
     * Brings the bucket up to {@code now} under {@code plan}: adopts the plan if it is not the one
     * in use (a reload), refills rates and rolls daily and monthly caps over. Call with the lock held.
     *
     * @return the dimensions the plan limits, as a bit set by ordinal
     */
    int refill(BucketPlan plan, long now, InMemoryQuotaStore store) {
        if (plan != this.plan) {
            adopt(plan, now, store);
        } else {
            refill(now, store);
        }
        return limited;
    }

    /** Brings the bucket up to {@code now} under the plan it already uses. Call with the lock held. */
    void refill(long now, InMemoryQuotaStore store) {
        long elapsed = now - lastRefill;
        if (elapsed > 0) {
            for (int m = limited & RATE_DIMS; m != 0; m &= m - 1) {
                int d = Integer.numberOfTrailingZeros(m);
                int b = base(d);
                double factor = Double.longBitsToDouble(s[b + FACTOR]);
                double cap = s[b + CAPACITY] * factor;
                long from = Math.max(lastRefill, Math.min(now, s[b + PAUSED_UNTIL]));
                double next = Double.longBitsToDouble(s[b + LEVEL])
                        + (now - from) * Double.longBitsToDouble(s[b + REFILL]) * factor;
                s[b + LEVEL] = Double.doubleToRawLongBits(Math.min(cap, next));
            }
            lastRefill = now;
        }
        if (hasDailyCap) {
            long today = store.today();
            if (today != day) {
                // A month is a function of the day in the reset zone, so the day alone is kept.
                int reset = CalendarMonths.of(today) != CalendarMonths.of(day) ? DAILY_DIMS | MONTHLY_DIMS : DAILY_DIMS;
                for (int m = limited & reset; m != 0; m &= m - 1) {
                    s[base(Integer.numberOfTrailingZeros(m)) + LEVEL] = Double.doubleToRawLongBits(0);
                }
                day = today;
            }
        }
    }

    /**
     * Takes {@code plan}'s capacities and rates. Like the store's old behaviour of reading the
     * plan on every call, the time since the last refill is refilled under the new plan, and a
     * lowered capacity applies at once. A dimension limited for the first time starts full:
     * nothing has been used yet.
     */
    private void adopt(BucketPlan plan, long now, InMemoryQuotaStore store) {
        boolean first = this.plan == null;
        int next = 0;
        for (int d : plan.dimensionOrdinals()) {
            next |= 1 << d;
        }
        int fresh = next & ~seen;
        grow(next);
        for (int d : plan.dimensionOrdinals()) {
            int b = base(d);
            s[b + CAPACITY] = plan.capacity(DIMS[d]);
            s[b + REFILL] = Double.doubleToRawLongBits(plan.refillPerNano(DIMS[d]));
            if ((fresh & (1 << d)) != 0 && DIMS[d].kind() == RATE) {
                setDouble(d, LEVEL, s[b + CAPACITY]);
            }
        }
        if (first || plan.hasDailyCap() && !hasDailyCap) {
            day = plan.hasDailyCap() ? store.today() : 0;
        }
        if (first) {
            lastRefill = now;
        }
        this.plan = plan;
        this.limited = next;
        this.hasDailyCap = plan.hasDailyCap();
        refill(now, store);
        for (int m = next & RATE_DIMS; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            double cap = s[base(d) + CAPACITY] * getDouble(d, FACTOR);
            setDouble(d, LEVEL, Math.min(cap, getDouble(d, LEVEL)));
        }
    }

    /**
     * Whether {@code amounts} fit on every dimension in {@code dims} now: null if they do, else the
     * shortfall that binds longest. {@code credit} is the part of each rate's minute beyond its
     * window the request may run ahead of the refill ({@link Headroom#credit}, 0 for none). Call
     * after {@link #refill}, with the lock held. One loop per kind of dimension, so the common case
     * is a handful of comparisons.
     */
    ReserveOutcome.Short check(int pathIndex, int dims, long[] amounts, double credit, long now,
            InMemoryQuotaStore store) {
        ReserveOutcome.Short binding = null;
        for (int m = dims & RATE_DIMS; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            int b = base(d);
            long need = amounts[d];
            long cap = s[b + CAPACITY];
            double factor = Double.longBitsToDouble(s[b + FACTOR]);
            // A request larger than the adapted capacity goes when the bucket is full and leaves debt.
            double required = Math.min(need, cap * factor);
            if (credit > 0) {
                // Lent from the minute beyond the window: only a short window's bucket has any.
                required -= credit * Math.max(0, plan.ceiling(DIMS[d]) - cap) * factor;
            }
            double level = Double.longBitsToDouble(s[b + LEVEL]);
            long pause = s[b + PAUSED_UNTIL] - now;
            if (need <= cap && pause <= 0 && level >= required - 1e-9) {
                continue;
            }
            ReserveOutcome.Short shortHere;
            // Above the capacity but within the ceiling (a short window's bucket): the request
            // waits for a full bucket, an empty window, like one above an adapted capacity.
            if (need > cap && need > plan.ceiling(DIMS[d])) {
                shortHere = shortOf(pathIndex, d, ReserveOutcome.Short.UNKNOWN_WAIT, true, false, need);
            } else if (need > cap && pause <= 0 && level >= required - 1e-9) {
                continue;
            } else {
                double rate = Double.longBitsToDouble(s[b + REFILL]) * factor;
                double deficit = Math.max(0, required - level);
                long wait = Math.max(0, pause) + (long) Math.ceil(deficit / rate);
                shortHere = shortOf(pathIndex, d, wait, false, false, need);
            }
            binding = longer(shortHere, binding);
        }
        for (int m = dims & ~RATE_DIMS; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            int b = base(d);
            long need = amounts[d];
            long cap = s[b + CAPACITY];
            if (Double.longBitsToDouble(s[b + LEVEL]) + need <= cap) {
                continue;
            }
            // A gauge frees up when others finish, a daily cap at midnight, a monthly one when the month turns.
            boolean daily = (DAILY_DIMS & (1 << d)) != 0;
            boolean monthly = (MONTHLY_DIMS & (1 << d)) != 0;
            long wait = daily ? store.nanosToMidnight()
                    : monthly ? store.nanosToMonthEnd() : ReserveOutcome.Short.UNKNOWN_WAIT;
            binding = longer(shortOf(pathIndex, d, wait, need > cap, daily || monthly, need), binding);
        }
        return binding;
    }

    /**
     * Whether taking {@code amounts} on the rates and gauges in {@code dims} leaves the
     * {@link Headroom} of {@code fraction} held back for higher classes: null if it does, else the
     * shortfall that binds longest, with what was held back. Only judges what {@link #check}
     * passes: a request that never fits or waits for a pause is named there, and the caller keeps
     * the longer of the two. Call after {@link #refill}, with the lock held.
     */
    ReserveOutcome.Short checkHeadroom(int pathIndex, int dims, long[] amounts, double fraction, long now) {
        ReserveOutcome.Short binding = null;
        for (int m = dims & (RATE_DIMS | GAUGE_DIMS); m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            int b = base(d);
            long need = amounts[d];
            long cap = s[b + CAPACITY];
            if (need > cap) {
                continue;
            }
            double level = Double.longBitsToDouble(s[b + LEVEL]);
            if ((RATE_DIMS & (1 << d)) != 0) {
                double factor = Double.longBitsToDouble(s[b + FACTOR]);
                double adapted = cap * factor;
                // Never more than a full bucket: a request larger than the capacity less the
                // headroom goes when the bucket is full, as one larger than the adapted capacity does.
                double required = Math.min(need + fraction * adapted, adapted);
                if (level >= required - 1e-9) {
                    continue;
                }
                double rate = Double.longBitsToDouble(s[b + REFILL]) * factor;
                long wait = Math.max(0, s[b + PAUSED_UNTIL] - now) + (long) Math.ceil((required - level) / rate);
                long held = (long) Math.ceil(required - Math.min(need, adapted));
                binding = longer(shortOf(pathIndex, d, wait, false, false, need, held), binding);
            } else {
                // An empty gauge always takes one request, however small the capacity.
                double most = Math.max(cap - fraction * cap, need);
                if (level + need <= most) {
                    continue;
                }
                long held = (long) Math.ceil(cap - most);
                binding = longer(shortOf(pathIndex, d, ReserveOutcome.Short.UNKNOWN_WAIT, false, false, need, held),
                        binding);
            }
        }
        return binding;
    }

    /** The shortfall that explains a rejection best: one that never fits, then a calendar cap, then the longest wait. */
    static ReserveOutcome.Short longer(ReserveOutcome.Short candidate, ReserveOutcome.Short current) {
        if (current == null) {
            return candidate;
        }
        if (candidate == null) {
            return current;
        }
        if (candidate.neverFits() != current.neverFits()) {
            return candidate.neverFits() ? candidate : current;
        }
        if (candidate.dailyCap() != current.dailyCap()) {
            return candidate.dailyCap() ? candidate : current;
        }
        long a = candidate.waitKnown() ? candidate.waitNanos() : Long.MAX_VALUE;
        long b = current.waitKnown() ? current.waitNanos() : Long.MAX_VALUE;
        return a > b ? candidate : current;
    }

    /** A shortfall on {@code d}; one that never fits names the largest request that would. */
    private ReserveOutcome.Short shortOf(int pathIndex, int d, long wait, boolean never, boolean daily, long need) {
        return shortOf(pathIndex, d, wait, never, daily, need, 0);
    }

    private ReserveOutcome.Short shortOf(int pathIndex, int d, long wait, boolean never, boolean daily, long need,
            long heldBack) {
        return new ReserveOutcome.Short(pathIndex, plan.scope(), DIMS[d], wait, never, daily,
                (long) Math.floor(available(d)), need, never ? plan.ceiling(DIMS[d]) : s[base(d) + CAPACITY], heldBack);
    }

    /** Takes {@code amounts} on the dimensions in {@code dims}; the caller has checked that they fit. */
    void take(int dims, long[] amounts) {
        for (int m = dims; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            int b = base(d);
            long amount = amounts[d];
            double level = Double.longBitsToDouble(s[b + LEVEL]);
            boolean rate = (RATE_DIMS & (1 << d)) != 0;
            s[b + LEVEL] = Double.doubleToRawLongBits(rate ? level - amount : level + amount);
            s[b + RESERVED] += amount;
        }
    }

    /**
     * Undoes {@link #take} for a reservation that failed on another bucket of its path, as if it
     * had never been made. A rate never ends above its capacity.
     */
    void untake(int dims, long[] amounts) {
        for (int m = dims; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            int b = base(d);
            long amount = amounts[d];
            double level = Double.longBitsToDouble(s[b + LEVEL]);
            double next = (RATE_DIMS & (1 << d)) != 0
                    ? Math.min(s[b + CAPACITY] * Double.longBitsToDouble(s[b + FACTOR]), level + amount)
                    : level - amount;
            s[b + LEVEL] = Double.doubleToRawLongBits(next);
            s[b + RESERVED] -= amount;
        }
    }

    /**
     * Ends a lease's hold on the dimensions in {@code dims}: rates and calendar caps keep
     * {@code actual} instead of what was reserved ({@code actual} null: nothing, the request never
     * went), gauges give their slots back. A refund never lifts a rate above its capacity: unused
     * tokens do not add burst.
     */
    void settle(int dims, long[] reserved, long[] actual) {
        for (int m = dims; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            int b = base(d);
            long r = reserved[d];
            boolean gauge = (GAUGE_DIMS & (1 << d)) != 0;
            long a = gauge ? r : actual == null ? 0 : Math.max(0, actual[d]);
            long kept = Math.min(a, r);
            s[b + SETTLED] += kept;
            s[b + REFUNDED] += r - kept;
            s[b + OVERAGE] += a - kept;
            double level = Double.longBitsToDouble(s[b + LEVEL]);
            double next;
            if ((RATE_DIMS & (1 << d)) != 0) {
                next = Math.min(s[b + CAPACITY] * Double.longBitsToDouble(s[b + FACTOR]), level + r - a);
            } else if (gauge) {
                next = level - r;
            } else {
                next = Math.max(0, level + a - r);
            }
            s[b + LEVEL] = Double.doubleToRawLongBits(next);
        }
    }

    /** Ends a lease that was never settled: rates and calendar caps keep the estimate, gauges are freed. */
    void expire(int dims, long[] reserved) {
        for (int m = dims; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            int b = base(d);
            s[b + EXPIRED] += reserved[d];
            if ((GAUGE_DIMS & (1 << d)) != 0) {
                s[b + LEVEL] = Double.doubleToRawLongBits(Double.longBitsToDouble(s[b + LEVEL]) - reserved[d]);
            }
        }
    }

    /** Adaptive control of {@code d}; nothing to do where the bucket has never limited it. */
    void control(int d, double rateFactor, long pauseNanos, long now) {
        if ((seen & (1 << d)) == 0) {
            return;
        }
        setDouble(d, FACTOR, rateFactor);
        s[base(d) + PAUSED_UNTIL] = pauseNanos > 0 ? now + pauseNanos : 0;
        if (DIMS[d].kind() == RATE) {
            // A lower factor lowers the capacity at once, not at the next refill.
            setDouble(d, LEVEL, Math.min(s[base(d) + CAPACITY] * rateFactor, getDouble(d, LEVEL)));
        }
    }

    void syncDown(int d, long remaining) {
        if ((seen & (1 << d)) != 0 && DIMS[d].kind() == RATE) {
            setDouble(d, LEVEL, Math.min(getDouble(d, LEVEL), remaining));
        }
    }

    private double available(int d) {
        double level = getDouble(d, LEVEL);
        return DIMS[d].kind() == RATE ? level : s[base(d) + CAPACITY] - level;
    }

    BucketState state(long now) {
        List<BucketState.DimensionState> dims = new ArrayList<>();
        for (int m = limited; m != 0; m &= m - 1) {
            int d = Integer.numberOfTrailingZeros(m);
            int b = base(d);
            dims.add(new BucketState.DimensionState(DIMS[d], available(d), s[b + CAPACITY], getDouble(d, FACTOR),
                    Math.max(0, s[b + PAUSED_UNTIL] - now), s[b + RESERVED], s[b + SETTLED], s[b + REFUNDED],
                    s[b + EXPIRED], s[b + RESERVED] - s[b + SETTLED] - s[b + REFUNDED] - s[b + EXPIRED],
                    s[b + OVERAGE]));
        }
        return new BucketState(key, dims);
    }

    private double getDouble(int d, int slot) {
        return Double.longBitsToDouble(s[base(d) + slot]);
    }

    private void setDouble(int d, int slot, double value) {
        s[base(d) + slot] = Double.doubleToRawLongBits(value);
    }

    private static int kindMask(Dimension.Kind kind) {
        int mask = 0;
        for (Dimension d : DIMS) {
            mask |= d.kind() == kind ? 1 << d.ordinal() : 0;
        }
        return mask;
    }
}
