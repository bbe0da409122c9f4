package dev.sluice.store;

import dev.sluice.limits.Dimension;
import dev.sluice.time.NanoClock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The default store: quota state in this process. Thread-safe; no call holds more than one
 * bucket's monitor at a time, so tenants contend only on the buckets they share, and only briefly.
 *
 * <p>The amount vectors given to {@link #reserve} are kept by the lease; callers must not change
 * them afterwards.
 */
public final class InMemoryQuotaStore implements QuotaStore {

    private static final Dimension[] DIMS = Dimension.values();

    private final NanoClock clock;
    private final ZoneId dailyResetZone;
    private final ConcurrentHashMap<String, MemoryBucket> buckets = new ConcurrentHashMap<>();
    /** Bucket arrays per path array; callers reuse their path arrays, so this is an identity lookup. */
    private final ConcurrentHashMap<PathKey, MemoryBucket[]> pathBuckets = new ConcurrentHashMap<>();
    private final Set<MemoryLease> leases = ConcurrentHashMap.newKeySet();
    private final AtomicLong nextLeaseId = new AtomicLong();
    private volatile CachedDay cachedDay;

    /**
     * @param clock the store's time
     * @param dailyResetZone daily caps reset at midnight in this zone
     */
    public InMemoryQuotaStore(NanoClock clock, ZoneId dailyResetZone) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.dailyResetZone = Objects.requireNonNull(dailyResetZone, "dailyResetZone");
    }

    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
        MemoryBucket[] held = buckets(path);
        long now = clock.nanos();
        // Check and take bucket by bucket, outermost first, holding one lock at a time. If a bucket
        // is short, the ones already taken are given back and the rest are only checked, so the
        // answer names the bucket that binds longest and nothing stays held anywhere.
        int taken = 0;
        ReserveOutcome.Short binding = null;
        for (int i = 0; i < path.length; i++) {
            BucketPlan plan = path[i];
            MemoryBucket b = held[i];
            synchronized (b) {
                b.refill(plan, now, plan.hasDailyCap() ? today() : 0);
                ReserveOutcome.Short shortHere = null;
                for (int d : plan.dimensionOrdinals()) {
                    long need = amounts[d];
                    if (need > 0) {
                        ReserveOutcome.Short s = b.check(plan, i, d, need, now, this);
                        if (s != null && binds(s, shortHere)) {
                            shortHere = s;
                        }
                    }
                }
                if (shortHere == null && binding == null) {
                    for (int d : plan.dimensionOrdinals()) {
                        if (amounts[d] > 0) {
                            b.take(d, amounts[d]);
                        }
                    }
                    taken = i + 1;
                } else if (shortHere != null && binds(shortHere, binding)) {
                    binding = shortHere;
                }
            }
        }
        if (binding != null) {
            for (int i = 0; i < taken; i++) {
                MemoryBucket b = held[i];
                synchronized (b) {
                    for (int d : path[i].dimensionOrdinals()) {
                        if (amounts[d] > 0) {
                            b.untake(path[i], d, amounts[d]);
                        }
                    }
                }
            }
            return binding;
        }
        MemoryLease lease = new MemoryLease(nextLeaseId.incrementAndGet(), path, held, amounts, now + leaseTtlNanos);
        leases.add(lease);
        return new ReserveOutcome.Granted(lease);
    }

    /** The shortfall that explains the rejection best: one that never fits, else the longest wait. */
    private static boolean binds(ReserveOutcome.Short candidate, ReserveOutcome.Short current) {
        if (current == null) {
            return true;
        }
        if (candidate.neverFits() != current.neverFits()) {
            return candidate.neverFits();
        }
        if (candidate.dailyCap() != current.dailyCap()) {
            return candidate.dailyCap();
        }
        long a = candidate.waitKnown() ? candidate.waitNanos() : Long.MAX_VALUE;
        long b = current.waitKnown() ? current.waitNanos() : Long.MAX_VALUE;
        return a > b;
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
        if (!lease.close()) {
            return SettleOutcome.ALREADY_CLOSED;
        }
        leases.remove(lease);
        long now = clock.nanos();
        for (int i = 0; i < lease.buckets.length; i++) {
            MemoryBucket b = lease.buckets[i];
            BucketPlan plan = lease.plans[i];
            synchronized (b) {
                b.refill(plan, now, plan.hasDailyCap() ? today() : 0);
                for (int d : plan.dimensionOrdinals()) {
                    long r = lease.amounts[d];
                    if (r <= 0) {
                        continue;
                    }
                    long a;
                    if (DIMS[d].kind() == Dimension.Kind.GAUGE) {
                        a = r;
                    } else {
                        a = release ? 0 : Math.max(0, actual[d]);
                    }
                    b.settle(plan, d, r, a);
                }
            }
        }
        return release ? SettleOutcome.RELEASED : SettleOutcome.SETTLED;
    }

    @Override
    public int expireLeases() {
        long now = clock.nanos();
        int ended = 0;
        for (MemoryLease lease : leases) {
            if (lease.expiresAt > now || !lease.close()) {
                continue;
            }
            leases.remove(lease);
            for (int i = 0; i < lease.buckets.length; i++) {
                MemoryBucket b = lease.buckets[i];
                synchronized (b) {
                    for (int d : lease.plans[i].dimensionOrdinals()) {
                        if (lease.amounts[d] > 0) {
                            b.expire(d, lease.amounts[d]);
                        }
                    }
                }
            }
            ended++;
        }
        return ended;
    }

    @Override
    public int openLeases() {
        return leases.size();
    }

    @Override
    public void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos) {
        if (!(rateFactor > 0 && rateFactor <= 1)) {
            throw new IllegalArgumentException("rateFactor: " + rateFactor + " (expected: in (0, 1])");
        }
        MemoryBucket b = bucket(plan);
        synchronized (b) {
            long now = clock.nanos();
            b.refill(plan, now, today());
            b.control(dimension.ordinal(), rateFactor, pauseNanos, now);
        }
    }

    @Override
    public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
        MemoryBucket b = bucket(plan);
        synchronized (b) {
            b.refill(plan, clock.nanos(), today());
            b.syncDown(dimension.ordinal(), remaining);
        }
    }

    @Override
    public BucketState state(BucketPlan plan) {
        MemoryBucket b = bucket(plan);
        synchronized (b) {
            long now = clock.nanos();
            b.refill(plan, now, today());
            return b.state(plan, now);
        }
    }

    private MemoryBucket[] buckets(BucketPlan[] path) {
        PathKey key = new PathKey(path);
        MemoryBucket[] held = pathBuckets.get(key);
        if (held == null) {
            held = new MemoryBucket[path.length];
            for (int i = 0; i < path.length; i++) {
                held[i] = bucket(path[i]);
            }
            pathBuckets.put(key, held);
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

    /** A path array compared by identity: the governor hands the same array for the same path. */
    private record PathKey(BucketPlan[] path) {
        @Override
        public boolean equals(Object o) {
            return o instanceof PathKey k && k.path == path;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(path);
        }
    }

    private record CachedDay(long fromMillis, long untilMillis, long day, long midnightMillis) {}

    private CachedDay day() {
        long millis = clock.epochMillis();
        CachedDay c = cachedDay;
        if (c == null || millis < c.fromMillis || millis >= c.untilMillis) {
            LocalDate date = Instant.ofEpochMilli(millis).atZone(dailyResetZone).toLocalDate();
            long midnight = date.plusDays(1).atStartOfDay(dailyResetZone).toInstant().toEpochMilli();
            long dayStart = date.atStartOfDay(dailyResetZone).toInstant().toEpochMilli();
            c = new CachedDay(dayStart, midnight, date.toEpochDay(), midnight);
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
}
