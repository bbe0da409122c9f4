package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.Headroom;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.NanoClock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Leased mode, after Google's Doorman: each replica holds a short lease on a share of every
 * bucket it uses and admits from a local in-memory bucket of that size, so an admission costs no
 * Redis call; a share is renewed (one call per bucket per {@link LeasedConfig#renewEvery}) and
 * rebalanced by demand. Redis never grants shares adding up to more than the whole bucket: a
 * replica gets at most what the others do not hold, and the share of a replica that stops
 * renewing is freed when its lease ends. The bound this keeps is in docs/REDIS.md.
 *
 * <p>Rate factors and pauses set with {@link #control} are stored in Redis and reach every
 * replica at its next renewal. Settlements are local. A request needing more than this replica's
 * share of a bucket's capacity is refused with an unknown wait: leased mode is for many small
 * requests, and exact mode ({@link RedisQuotaStore}) for the rest.
 */
public final class LeasedQuotaStore implements QuotaStore {

    /** Every call may reach Redis. */
    @Override
    public boolean waitsOnNetwork() {
        return true;
    }

    private final RedisQuotaStore remote;
    private final NanoClock clock;
    private final LeasedConfig config;
    private final InMemoryQuotaStore local;
    private final ConcurrentHashMap<String, Share> shares = new ConcurrentHashMap<>();

    /** This replica's share of one bucket. Fields other than the lock are written under it. */
    private static final class Share {
        final ReentrantLock lock = new ReentrantLock();
        final LongAdder demand = new LongAdder();
        volatile BucketPlan source;
        volatile Optional<BucketPlan> localPlan = Optional.empty();
        volatile double grant;
        volatile long validUntil = Long.MIN_VALUE;
        volatile long renewAt = Long.MIN_VALUE;
        long lastRenewal;
    }

    /**
     * @param remote the shared store; its time source and namespace are used for the shares
     * @param clock this replica's clock for local buckets and renewal times
     */
    public LeasedQuotaStore(RedisQuotaStore remote, NanoClock clock, LeasedConfig config) {
        this.remote = Objects.requireNonNull(remote, "remote");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.config = Objects.requireNonNull(config, "config");
        this.local = new InMemoryQuotaStore(clock, remote.config().dailyResetZone());
    }

    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
        return reserve(path, amounts, leaseTtlNanos, Headroom.NONE);
    }

    /** Keeps the headroom on this replica's share of each bucket, as a fraction of the share. */
    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos, Headroom headroom) {
        long now = clock.nanos();
        BucketPlan[] localPath = new BucketPlan[path.length];
        for (int i = 0; i < path.length; i++) {
            Share s = fresh(path[i], now);
            Optional<BucketPlan> lp = s.localPlan;
            if (lp.isEmpty()) {
                // No share of this bucket until the next renewal.
                Dimension d = Dimension.byOrdinal(path[i].limitedDimensions()[0]);
                return new ReserveOutcome.Short(i, path[i].scope(), d, Math.max(0, s.renewAt - now), false, false, 0,
                        amounts[d.ordinal()], path[i].capacity(d));
            }
            localPath[i] = lp.get();
        }
        ReserveOutcome o = local.reserve(localPath, amounts, leaseTtlNanos, headroom);
        if (o instanceof ReserveOutcome.Short sh && sh.neverFits()
                && sh.needed() <= path[sh.pathIndex()].capacity(sh.dimension())) {
            // It would fit the whole bucket, just not this replica's share of it.
            return new ReserveOutcome.Short(sh.pathIndex(), sh.scope(), sh.dimension(), ReserveOutcome.Short.UNKNOWN_WAIT,
                    false, sh.dailyCap(), sh.available(), sh.needed(), sh.capacity(), sh.heldBack());
        }
        return o;
    }

    /** The share of {@code plan}, renewed first if due; counts this call as demand. */
    private Share fresh(BucketPlan plan, long now) {
        Share s = shares.computeIfAbsent(plan.key(), k -> new Share());
        s.demand.increment();
        if (now < s.renewAt && s.source == plan) {
            return s;
        }
        if (!s.lock.tryLock()) {
            if (now < s.validUntil && s.source == plan) {
                return s; // someone else is renewing; the current lease still holds
            }
            s.lock.lock();
        }
        try {
            if (now >= s.renewAt || s.source != plan) {
                renew(s, plan, now);
            }
        } finally {
            s.lock.unlock();
        }
        return s;
    }

    private void renew(Share s, BucketPlan plan, long now) {
        double seconds = Math.max(1e-3, (now - s.lastRenewal) / 1e9);
        // +1 so a replica that has been idle still gets a sliver, and a first request is served.
        double demand = s.demand.sumThenReset() / seconds + 1;
        List<Object> r;
        try {
            r = share(plan, demand, false);
        } catch (StoreUnavailableException e) {
            if (now < s.validUntil && s.source == plan) {
                s.renewAt = now + config.renewEvery().toNanos() / 4;
                return;
            }
            s.localPlan = Optional.empty();
            throw e;
        }
        double grant = Double.parseDouble((String) r.get(0));
        Optional<BucketPlan> next = ScaledPlans.scale(plan, grant);
        double before = s.grant;
        s.source = plan;
        s.grant = grant;
        s.localPlan = next;
        s.lastRenewal = now;
        s.validUntil = now + config.leaseLength().toNanos();
        s.renewAt = now + config.renewEvery().toNanos();
        if (next.isPresent()) {
            BucketPlan lp = next.get();
            int[] dims = plan.limitedDimensions();
            for (int j = 0; j < dims.length; j++) {
                Dimension d = Dimension.byOrdinal(dims[j]);
                if (d.kind() != Dimension.Kind.RATE) {
                    continue;
                }
                double factor = Double.parseDouble((String) r.get(1 + 2 * j));
                long pause = (long) Double.parseDouble((String) r.get(2 + 2 * j));
                local.control(lp, d, factor, pause);
                if (grant < before) {
                    // A smaller share keeps no more tokens than it may hold.
                    local.syncDown(lp, d, lp.capacity(d));
                }
            }
        }
    }

    private List<Object> share(BucketPlan plan, double demand, boolean giveBack) {
        KeyLayout keys = remote.keys();
        int[] dims = plan.limitedDimensions();
        Object[] a = new Object[5 + dims.length];
        a[0] = remote.clock();
        a[1] = remote.config().replicaId();
        a[2] = Double.toString(demand);
        a[3] = config.leaseLength().toNanos();
        a[4] = giveBack ? "1" : "0";
        for (int i = 0; i < dims.length; i++) {
            a[5 + i] = (long) dims[i];
        }
        byte[][] k = {Packing.key(keys.share(keys.tagOf(plan.scope()), plan)), remote.bucketKey(plan)};
        return remote.link().callList(Library.Fn.SHARE, k, a);
    }

    /** This replica's current share of {@code plan}'s bucket, 0 to 1 (0 before its first use). */
    public double share(BucketPlan plan) {
        Share s = shares.get(plan.key());
        return s == null || clock.nanos() >= s.validUntil ? 0 : s.grant;
    }

    @Override
    public SettleOutcome settle(LeaseHandle lease, long[] actual) {
        return local.settle(lease, actual);
    }

    @Override
    public SettleOutcome release(LeaseHandle lease) {
        return local.release(lease);
    }

    @Override
    public int expireLeases() {
        return local.expireLeases();
    }

    /** Leases open on this replica (leased mode keeps them locally). */
    @Override
    public int openLeases() {
        return local.openLeases();
    }

    /** Stored in Redis for every replica, and applied to this replica's share at once. */
    @Override
    public void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos) {
        remote.control(plan, dimension, rateFactor, pauseNanos);
        Share s = shares.get(plan.key());
        if (s != null) {
            s.localPlan.ifPresent(lp -> local.control(lp, dimension, rateFactor, pauseNanos));
        }
    }

    /**
     * Lowers this replica's share to its part of {@code remaining}; without a share, the shared
     * bucket, which is what {@link #state} then reports.
     */
    @Override
    public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
        Share s = shares.get(plan.key());
        if (s == null || s.localPlan.isEmpty()) {
            remote.syncDown(plan, dimension, remaining);
        } else {
            double g = s.grant;
            s.localPlan.filter(lp -> lp.limits(dimension))
                    .ifPresent(lp -> local.syncDown(lp, dimension, (long) Math.floor(remaining * g)));
        }
    }

    /** This replica's share of the bucket, or the shared bucket if it holds no share. */
    @Override
    public BucketState state(BucketPlan plan) {
        Share s = shares.get(plan.key());
        if (s != null && s.localPlan.isPresent()) {
            return local.state(s.localPlan.get());
        }
        return remote.state(plan);
    }

    /** Gives every share back so other replicas can take it at once; does not close the remote store. */
    @Override
    public void close() {
        for (Share s : shares.values()) {
            BucketPlan p = s.source;
            if (p != null) {
                try {
                    share(p, 0, true);
                } catch (StoreUnavailableException e) {
                    // The lease ends on its own.
                }
            }
        }
        local.close();
    }
}
