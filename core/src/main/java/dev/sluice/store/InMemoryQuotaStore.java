package dev.sluice.store;

import dev.sluice.limits.Dimension;
import dev.sluice.time.NanoClock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default store: quota state in this process. Thread-safe; no call holds more than one
 * bucket's lock at a time, so tenants contend only on the buckets they share, and only briefly.
 *
 * <p>The amount vectors given to {@link #reserve} are kept by the lease; callers must not change
 * them afterwards.
 */
public final class InMemoryQuotaStore implements QuotaStore {

    private static final Dimension[] DIMS = Dimension.values();
    /** A power of two: more than the threads that usually reserve at once. */
    private static final int LEASE_STRIPES = 16;
    /** Org, tenant, team, key, profile, provider scopes and deployment, with room to spare: what a lease's two longs record. */
    private static final int MAX_PATH = MemoryLease.MAX_BUCKETS;

    private final NanoClock clock;
    private final ZoneId dailyResetZone;
    private final ConcurrentHashMap<String, MemoryBucket> buckets = new ConcurrentHashMap<>();
    /** Open leases, striped by the opening thread so that event loops do not meet here. */
    private final LeaseStripe[] leaseStripes = new LeaseStripe[LEASE_STRIPES];
    private volatile CachedDay cachedDay;


    /**
     * @param clock the store's time
     * @param dailyResetZone daily caps reset at midnight in this zone
     */
    public InMemoryQuotaStore(NanoClock clock, ZoneId dailyResetZone) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.dailyResetZone = Objects.requireNonNull(dailyResetZone, "dailyResetZone");
        for (int i = 0; i < LEASE_STRIPES; i++) {
            leaseStripes[i] = new LeaseStripe(i, LEASE_STRIPES);
        }
    }

    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
        return reserve(path, buckets(path), amounts, leaseTtlNanos, Headroom.NONE);
    }

    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos, Headroom headroom) {
        return reserve(path, buckets(path), amounts, leaseTtlNanos, headroom);
    }

    @Override
    public BoundPath bind(BucketPlan[] path) {
        BucketPlan[] plans = path.clone();
        MemoryBucket[] held = buckets(plans);
        return new BoundPath() {
            @Override
            public ReserveOutcome reserve(long[] amounts, long leaseTtlNanos) {
                return InMemoryQuotaStore.this.reserve(plans, held, amounts, leaseTtlNanos, Headroom.NONE);
            }

            @Override
            public ReserveOutcome reserve(long[] amounts, long leaseTtlNanos, Headroom headroom) {
                return InMemoryQuotaStore.this.reserve(plans, held, amounts, leaseTtlNanos, headroom);
            }
        };
    }

    private ReserveOutcome reserve(BucketPlan[] path, MemoryBucket[] held, long[] amounts, long leaseTtlNanos,
            Headroom headroom) {
        long now = clock.nanos();
        int asked = 0;
        for (int d = 0; d < amounts.length; d++) {
            asked |= amounts[d] > 0 ? 1 << d : 0;
        }
        // Check and take bucket by bucket, outermost first, holding one lock at a time. If a bucket
        // is short, the ones already taken are given back and the rest are only checked, so the
        // answer names the bucket that binds longest and nothing stays held anywhere.
        int taken = 0;
        long takenDims = 0;
        long takenDimsHigh = 0;
        ReserveOutcome.Short binding = null;
        for (int i = 0; i < path.length; i++) {
            MemoryBucket b = held[i];
            b.lock();
            try {
                int wanted = b.refill(path[i], now, this) & asked;
                ReserveOutcome.Short shortHere = b.check(i, wanted, amounts, headroom.creditOn(i), now, this);
                if (headroom.holdsBackOn(i)) {
                    shortHere = MemoryBucket.longer(b.checkHeadroom(i, wanted, amounts, headroom.fraction(), now),
                            shortHere);
                }
                if (shortHere == null && binding == null) {
                    b.take(wanted, amounts);
                    if (i < MemoryLease.PER_WORD) {
                        takenDims = MemoryLease.with(takenDims, i, wanted);
                    } else {
                        takenDimsHigh = MemoryLease.with(takenDimsHigh, i, wanted);
                    }
                    taken = i + 1;
                } else {
                    binding = MemoryBucket.longer(shortHere, binding);
                }
            } finally {
                b.unlock();
            }
        }
        if (binding != null) {
            for (int i = 0; i < taken; i++) {
                MemoryBucket b = held[i];
                b.lock();
                try {
                    b.untake(MemoryLease.takenAt(takenDims, takenDimsHigh, i), amounts);
                } finally {
                    b.unlock();
                }
            }
            return binding;
        }
        LeaseStripe stripe = leaseStripes[(int) Thread.currentThread().threadId() & (leaseStripes.length - 1)];
        MemoryLease lease = new MemoryLease(held, takenDims, takenDimsHigh, amounts, now + leaseTtlNanos, stripe);
        stripe.add(lease);
        return new ReserveOutcome.Granted(lease);
    }

    @Override
    public SettleOutcome settle(LeaseHandle handle, long[] actual) {
        return end(lease(handle), actual, false);
    }

    @Override
    public SettleOutcome release(LeaseHandle handle) {
        return end(lease(handle), null, true);
    }

    private SettleOutcome end(MemoryLease lease, long[] actual, boolean release) {
        if (!lease.stripe.close(lease)) {
            return SettleOutcome.ALREADY_CLOSED;
        }
        long[] kept = release ? null : actual;
        // Giving back commutes with refilling (both only add, and both stop at the capacity), so a
        // settlement that only refunds leaves the refill to the next reservation. Overage is debt
        // below what the bucket holds now: that needs the bucket brought up to date first.
        boolean overage = false;
        if (kept != null) {
            for (int d = 0; d < kept.length; d++) {
                overage |= DIMS[d].kind() != Dimension.Kind.GAUGE && kept[d] > lease.amounts[d];
            }
        }
        long now = overage ? clock.nanos() : 0;
        for (int i = 0; i < lease.buckets.length; i++) {
            MemoryBucket b = lease.buckets[i];
            b.lock();
            try {
                if (overage) {
                    b.refill(now, this);
                }
                b.settle(lease.takenAt(i), lease.amounts, kept);
            } finally {
                b.unlock();
            }
        }
        return release ? SettleOutcome.RELEASED : SettleOutcome.SETTLED;
    }

    @Override
    public int expireLeases() {
        long now = clock.nanos();
        List<MemoryLease> ended = new ArrayList<>();
        for (LeaseStripe stripe : leaseStripes) {
            stripe.closeExpired(now, ended);
        }
        for (MemoryLease lease : ended) {
            for (int i = 0; i < lease.buckets.length; i++) {
                MemoryBucket b = lease.buckets[i];
                b.lock();
                try {
                    b.expire(lease.takenAt(i), lease.amounts);
                } finally {
                    b.unlock();
                }
            }
        }
        return ended.size();
    }

    @Override
    public int openLeases() {
        int open = 0;
        for (LeaseStripe stripe : leaseStripes) {
            open += stripe.open();
        }
        return open;
    }

    @Override
    public void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos) {
        if (!(rateFactor > 0 && rateFactor <= 1)) {
            throw new IllegalArgumentException("rateFactor: " + rateFactor + " (expected: in (0, 1])");
        }
        MemoryBucket b = bucket(plan);
        b.lock();
        try {
            long now = clock.nanos();
            b.refill(plan, now, this);
            b.control(dimension.ordinal(), rateFactor, pauseNanos, now);
        } finally {
            b.unlock();
        }
    }

    @Override
    public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
        MemoryBucket b = bucket(plan);
        b.lock();
        try {
            b.refill(plan, clock.nanos(), this);
            b.syncDown(dimension.ordinal(), remaining);
        } finally {
            b.unlock();
        }
    }

    @Override
    public BucketState state(BucketPlan plan) {
        MemoryBucket b = bucket(plan);
        b.lock();
        try {
            long now = clock.nanos();
            b.refill(plan, now, this);
            return b.state(now);
        } finally {
            b.unlock();
        }
    }

    /**
     * The buckets of a path given by value. Looked up on every call rather than cached by the
     * array: callers such as the leased and failover stores build a fresh array per call, and
     * a cache keyed by it would grow without end. Repeated callers {@link #bind} instead.
     */
    private MemoryBucket[] buckets(BucketPlan[] path) {
        if (path.length > MAX_PATH) {
            // A lease records what it took per bucket in one bit per dimension of one long.
            throw new IllegalArgumentException("path: " + path.length + " buckets (expected: at most " + MAX_PATH + ")");
        }
        MemoryBucket[] held = new MemoryBucket[path.length];
        for (int i = 0; i < path.length; i++) {
            held[i] = bucket(path[i]);
        }
        return held;
    }

    private MemoryBucket bucket(BucketPlan plan) {
        MemoryBucket b = buckets.get(plan.key());
        return b != null ? b : buckets.computeIfAbsent(plan.key(), MemoryBucket::new);
    }

    private static MemoryLease lease(LeaseHandle handle) {
        if (handle instanceof MemoryLease m) {
            return m;
        }
        throw new IllegalArgumentException("lease: " + handle.getClass().getName() + " (expected: a lease of this store)");
    }

    private record CachedDay(long fromMillis, long untilMillis, long day, long midnightMillis, long monthEndMillis) {}

    private CachedDay day() {
        long millis = clock.epochMillis();
        CachedDay c = cachedDay;
        if (c == null || millis < c.fromMillis || millis >= c.untilMillis) {
            LocalDate date = Instant.ofEpochMilli(millis).atZone(dailyResetZone).toLocalDate();
            long midnight = date.plusDays(1).atStartOfDay(dailyResetZone).toInstant().toEpochMilli();
            long dayStart = date.atStartOfDay(dailyResetZone).toInstant().toEpochMilli();
            long monthEnd = date.withDayOfMonth(1).plusMonths(1).atStartOfDay(dailyResetZone).toInstant().toEpochMilli();
            c = new CachedDay(dayStart, midnight, date.toEpochDay(), midnight, monthEnd);
            cachedDay = c;
        }
        return c;
    }

    /** Today's number in the reset zone. */
    long today() {
        return day().day;
    }

    /** Time left until midnight in the reset zone. */
    long nanosToMidnight() {
        return (day().midnightMillis - clock.epochMillis()) * 1_000_000L;
    }

    /** Time left until the midnight that starts the next month in the reset zone. */
    long nanosToMonthEnd() {
        return (day().monthEndMillis - clock.epochMillis()) * 1_000_000L;
    }
}
