package dev.sluice.store;

import dev.sluice.limits.Dimension;
import dev.sluice.time.NanoClock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The default store: quota state in this process. Thread-safe; a reservation locks only the
 * buckets on its own path (outermost first), so tenants that share no bucket never contend.
 */
public final class InMemoryQuotaStore implements QuotaStore {

    private static final Dimension[] DIMS = Dimension.values();

    private final NanoClock clock;
    private final ZoneId dailyResetZone;
    private final ConcurrentHashMap<String, MemoryBucket> buckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, MemoryLease> leases = new ConcurrentHashMap<>();
    private final AtomicLong nextLeaseId = new AtomicLong();

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
        MemoryBucket[] held = new MemoryBucket[path.length];
        for (int i = 0; i < path.length; i++) {
            held[i] = bucket(path[i]);
        }
        int locked = 0;
        try {
            for (; locked < held.length; locked++) {
                held[locked].lock.lock();
            }
            long now = clock.nanos();
            Calendar cal = null;
            ReserveOutcome.Short binding = null;
            for (int i = 0; i < path.length; i++) {
                BucketPlan plan = path[i];
                if (cal == null) {
                    cal = calendar(now);
                }
                held[i].refill(plan, now, cal.day);
                for (int d : plan.dimensionOrdinals()) {
                    long need = amounts[d];
                    if (need <= 0) {
                        continue;
                    }
                    ReserveOutcome.Short s = held[i].check(plan, i, d, need, now, cal.nanosToMidnight);
                    if (s != null && binds(s, binding)) {
                        binding = s;
                    }
                }
            }
            if (binding != null) {
                return binding;
            }
            MemoryLease lease = new MemoryLease("m" + nextLeaseId.incrementAndGet(), path, held, amounts.clone(),
                    now + leaseTtlNanos);
            for (int i = 0; i < path.length; i++) {
                for (int d : path[i].dimensionOrdinals()) {
                    if (amounts[d] > 0) {
                        held[i].take(d, amounts[d]);
                    }
                }
            }
            leases.put(lease.id(), lease);
            return new ReserveOutcome.Granted(lease);
        } finally {
            for (int i = locked - 1; i >= 0; i--) {
                held[i].lock.unlock();
            }
        }
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
        return end(lease(handle), actual, SettleOutcome.SETTLED);
    }

    @Override
    public SettleOutcome release(LeaseHandle handle) {
        return end(lease(handle), new long[Dimension.COUNT], SettleOutcome.RELEASED);
    }

    private SettleOutcome end(MemoryLease lease, long[] actual, SettleOutcome outcome) {
        if (!lease.close()) {
            return SettleOutcome.ALREADY_CLOSED;
        }
        leases.remove(lease.id());
        long now = clock.nanos();
        long today = calendar(now).day;
        lockAll(lease.buckets);
        try {
            for (int i = 0; i < lease.buckets.length; i++) {
                MemoryBucket b = lease.buckets[i];
                b.refill(lease.plans[i], now, today);
                for (int d : lease.plans[i].dimensionOrdinals()) {
                    long r = lease.amounts[d];
                    if (r <= 0) {
                        continue;
                    }
                    long a = DIMS[d].kind() == Dimension.Kind.GAUGE ? r : Math.max(0, actual[d]);
                    b.settle(d, r, outcome == SettleOutcome.RELEASED && DIMS[d].kind() != Dimension.Kind.GAUGE ? 0 : a);
                }
            }
        } finally {
            unlockAll(lease.buckets);
        }
        return outcome;
    }

    @Override
    public int expireLeases() {
        long now = clock.nanos();
        int ended = 0;
        for (MemoryLease lease : leases.values()) {
            if (lease.expiresAt > now || !lease.close()) {
                continue;
            }
            leases.remove(lease.id());
            lockAll(lease.buckets);
            try {
                for (int i = 0; i < lease.buckets.length; i++) {
                    for (int d : lease.plans[i].dimensionOrdinals()) {
                        if (lease.amounts[d] > 0) {
                            lease.buckets[i].expire(d, lease.amounts[d]);
                        }
                    }
                }
            } finally {
                unlockAll(lease.buckets);
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
        b.lock.lock();
        try {
            long now = clock.nanos();
            b.refill(plan, now, calendar(now).day);
            b.control(dimension.ordinal(), rateFactor, pauseNanos, now);
        } finally {
            b.lock.unlock();
        }
    }

    @Override
    public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
        MemoryBucket b = bucket(plan);
        b.lock.lock();
        try {
            long now = clock.nanos();
            b.refill(plan, now, calendar(now).day);
            b.syncDown(dimension.ordinal(), remaining);
        } finally {
            b.lock.unlock();
        }
    }

    @Override
    public BucketState state(BucketPlan plan) {
        MemoryBucket b = bucket(plan);
        b.lock.lock();
        try {
            long now = clock.nanos();
            b.refill(plan, now, calendar(now).day);
            return b.state(plan, now);
        } finally {
            b.lock.unlock();
        }
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

    private static void lockAll(MemoryBucket[] bs) {
        for (MemoryBucket b : bs) {
            b.lock.lock();
        }
    }

    private static void unlockAll(MemoryBucket[] bs) {
        for (int i = bs.length - 1; i >= 0; i--) {
            bs[i].lock.unlock();
        }
    }

    /** Today's number in the reset zone and the time left until its midnight, cached per second. */
    private record Calendar(long day, long nanosToMidnight) {}

    private volatile CachedDay cachedDay;

    private record CachedDay(long fromMillis, long untilMillis, long day, long midnightMillis) {}

    private Calendar calendar(long nowNanos) {
        long millis = clock.epochMillis();
        CachedDay c = cachedDay;
        if (c == null || millis < c.fromMillis || millis >= c.untilMillis) {
            LocalDate date = Instant.ofEpochMilli(millis).atZone(dailyResetZone).toLocalDate();
            long midnight = date.plusDays(1).atStartOfDay(dailyResetZone).toInstant().toEpochMilli();
            c = new CachedDay(millis, Math.min(midnight, millis + 1000), date.toEpochDay(), midnight);
            cachedDay = c;
        }
        return new Calendar(c.day, (c.midnightMillis - millis) * 1_000_000L);
    }
}
