package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.Headroom;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.NanoClock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * A shared store with a failure policy per deployment. While the shared store answers, this is
 * the shared store. When it throws {@link StoreUnavailableException}, it is left alone for
 * {@link FailoverConfig#retryAfter} and each admission takes its deployment's policy:
 * {@link FailurePolicy#FAIL_CLOSED} rethrows (the gateway answers 503), and
 * {@link FailurePolicy#FAIL_OPEN_LOCAL} admits from a local in-memory bucket holding 1/N of every
 * limit on the path (N from {@code replicas}, counted while the shared store was up).
 *
 * <p>Recovery counts nothing twice: a lease ends in the store that granted it (local leases stay
 * local after recovery); settlements of shared leases made during the outage are replayed by the
 * Redis store once it answers, and ending a lease is idempotent. What the fallback admitted is not
 * copied into Redis: the provider has already seen it, and the shared buckets refill meanwhile.
 */
public final class FailoverQuotaStore implements QuotaStore {

    /** Every call may reach Redis. */
    @Override
    public boolean waitsOnNetwork() {
        return true;
    }

    private final QuotaStore primary;
    private final FailoverConfig config;
    private final NanoClock clock;
    private final IntSupplier replicas;
    private final InMemoryQuotaStore fallback;
    private final ConcurrentHashMap<BucketPlan, Scaled> scaled = new ConcurrentHashMap<>();
    private volatile long downUntil = Long.MIN_VALUE;

    private record Scaled(int replicas, Optional<BucketPlan> plan) {}

    /** A lease and which store holds it. */
    private record RoutedLease(LeaseHandle inner, boolean local) implements LeaseHandle {
        @Override
        public String id() {
            return local ? "local:" + inner.id() : inner.id();
        }
    }

    /**
     * @param primary the shared store; it signals an outage by throwing {@link StoreUnavailableException}
     * @param replicas how many replicas share the limits (a constant from configuration, or
     *     {@link SharedControlState#lastKnownLiveReplicas}); read when the fallback is used
     */
    public FailoverQuotaStore(QuotaStore primary, FailoverConfig config, NanoClock clock, IntSupplier replicas) {
        this.primary = Objects.requireNonNull(primary, "primary");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.replicas = Objects.requireNonNull(replicas, "replicas");
        this.fallback = new InMemoryQuotaStore(clock, config.dailyResetZone());
    }

    /** Whether the shared store is being left alone after a failure. */
    public boolean degraded() {
        return clock.nanos() < downUntil;
    }

    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
        return reserve(path, amounts, leaseTtlNanos, Headroom.NONE);
    }

    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos, Headroom headroom) {
        StoreUnavailableException cause = null;
        if (usable()) {
            try {
                ReserveOutcome o = primary.reserve(path, amounts, leaseTtlNanos, headroom);
                return o instanceof ReserveOutcome.Granted g ? new ReserveOutcome.Granted(new RoutedLease(g.lease(), false)) : o;
            } catch (StoreUnavailableException e) {
                markDown();
                cause = e;
            }
        }
        String deployment = deployment(path);
        if (config.policy(deployment) == FailurePolicy.FAIL_CLOSED) {
            throw new StoreUnavailableException("quota store unavailable; deployment '" + deployment + "' fails closed",
                    cause);
        }
        BucketPlan[] local = new BucketPlan[path.length];
        for (int i = 0; i < path.length; i++) {
            Optional<BucketPlan> p = localPlan(path[i]);
            if (p.isEmpty()) {
                throw new StoreUnavailableException("quota store unavailable; " + path[i].key()
                        + " has no local share at 1/" + replicas.getAsInt() + " of its limits", cause);
            }
            local[i] = p.get();
        }
        ReserveOutcome o = fallback.reserve(local, amounts, leaseTtlNanos, headroom);
        return o instanceof ReserveOutcome.Granted g ? new ReserveOutcome.Granted(new RoutedLease(g.lease(), true)) : o;
    }

    @Override
    public SettleOutcome settle(LeaseHandle lease, long[] actual) {
        RoutedLease r = routed(lease);
        if (r.local()) {
            return fallback.settle(r.inner(), actual);
        }
        try {
            return primary.settle(r.inner(), actual);
        } catch (StoreUnavailableException e) {
            markDown();
            return SettleOutcome.SETTLED;
        }
    }

    @Override
    public SettleOutcome release(LeaseHandle lease) {
        RoutedLease r = routed(lease);
        if (r.local()) {
            return fallback.release(r.inner());
        }
        try {
            return primary.release(r.inner());
        } catch (StoreUnavailableException e) {
            markDown();
            return SettleOutcome.RELEASED;
        }
    }

    @Override
    public int expireLeases() {
        int n = fallback.expireLeases();
        if (usable()) {
            try {
                n += primary.expireLeases();
            } catch (StoreUnavailableException e) {
                markDown();
            }
        }
        return n;
    }

    @Override
    public int openLeases() {
        int n = fallback.openLeases();
        if (usable()) {
            try {
                n += primary.openLeases();
            } catch (StoreUnavailableException e) {
                markDown();
            }
        }
        return n;
    }

    /** Stored in the shared store, and in the local share so a cooldown holds through an outage. */
    @Override
    public void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos) {
        if (usable()) {
            try {
                primary.control(plan, dimension, rateFactor, pauseNanos);
            } catch (StoreUnavailableException e) {
                markDown();
            }
        }
        localPlan(plan).ifPresent(p -> fallback.control(p, dimension, rateFactor, pauseNanos));
    }

    @Override
    public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
        if (usable()) {
            try {
                primary.syncDown(plan, dimension, remaining);
            } catch (StoreUnavailableException e) {
                markDown();
            }
        }
        int n = Math.max(1, replicas.getAsInt());
        localPlan(plan).filter(p -> p.limits(dimension)).ifPresent(p -> fallback.syncDown(p, dimension, remaining / n));
    }

    /** The shared bucket, or during an outage this replica's local share of it. */
    @Override
    public BucketState state(BucketPlan plan) {
        if (usable()) {
            try {
                return primary.state(plan);
            } catch (StoreUnavailableException e) {
                markDown();
            }
        }
        return fallback.state(localPlan(plan).orElse(plan));
    }

    @Override
    public void close() {
        primary.close();
        fallback.close();
    }

    private boolean usable() {
        return clock.nanos() >= downUntil;
    }

    private void markDown() {
        downUntil = clock.nanos() + config.retryAfter().toNanos();
    }

    private Optional<BucketPlan> localPlan(BucketPlan plan) {
        int n = Math.max(1, replicas.getAsInt());
        Scaled s = scaled.get(plan);
        if (s == null || s.replicas() != n) {
            s = new Scaled(n, ScaledPlans.scale(plan, 1.0 / n));
            scaled.put(plan, s);
        }
        return s.plan();
    }

    private static String deployment(BucketPlan[] path) {
        for (int i = path.length - 1; i >= 0; i--) {
            if (path[i].scope().level() == ScopeLevel.PROVIDER_DEPLOYMENT) {
                return path[i].scope().id();
            }
        }
        return "";
    }

    private static RoutedLease routed(LeaseHandle handle) {
        if (handle instanceof RoutedLease r) {
            return r;
        }
        throw new IllegalArgumentException("lease: " + handle.getClass().getName() + " (expected: a lease of this store)");
    }
}
