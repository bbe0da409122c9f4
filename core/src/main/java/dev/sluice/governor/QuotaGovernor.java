package dev.sluice.governor;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BoundPath;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.NanoClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

/**
 * The quota governor: decides, before a request leaves, whether it fits every bucket on its path
 * (organisation > tenant > team > api key > model profile > provider deployment), all or nothing;
 * queues it in its class queue when it can be served within its wait budget and deadline; and
 * otherwise rejects it at once with the limiter, the scope and a retry delay from refill arithmetic.
 *
 * <p>It has no threads and never sleeps. Queued work is admitted when whoever drives the governor
 * calls {@link #onTimer()} at {@link #nextWakeupNanos()} (the gateway from an event-loop timer, the
 * simulator from its virtual clock), or at once when a settlement frees capacity. Thread-safe.
 */
public final class QuotaGovernor {

    private final QuotaStore store;
    private final NanoClock clock;
    private volatile GovernorConfig config;
    private volatile long leaseTtlNanos;
    /** Everything a path resolves to, looked up once per admission instead of once per part. */
    private final ConcurrentHashMap<RequestPath, Route> routes = new ConcurrentHashMap<>();

    /**
     * A path's buckets bound to the store, its deployment's lane, its tenant's share of that lane,
     * and which of its buckets are shared (by path index): those keep the class reserves.
     */
    private record Route(BoundPath buckets, Lane lane, TenantShare share, int shared) {}

    private final ConcurrentHashMap<Scope, Optional<BucketPlan>> plans = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();
    /** Read on every decision: an array, so iterating it allocates nothing. */
    private volatile GovernorListener[] listeners = new GovernorListener[0];
    private volatile Lane[] laneArray = new Lane[0];
    private volatile LongConsumer wakeupHook = t -> {};
    private volatile long announcedWakeup = Long.MAX_VALUE;
    private volatile long nextSweep = Long.MAX_VALUE;

    public QuotaGovernor(GovernorConfig config, QuotaStore store, NanoClock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.leaseTtlNanos = config.leaseTtl().toNanos();
    }

    /**
     * What a deadline must still leave once a request is let go to its provider: twice the call's
     * typical duration ({@code estimate.ServiceTimes}). Durations vary (a log-normal time to first
     * token, output lengths), and work let go with room for only the typical one was still
     * generating at its deadline about half the time (sweep members timed out 22 to 37 requests so).
     */
    static long callRoom(long serviceNanos) {
        return serviceNanos > Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 2 : 2 * serviceNanos;
    }

    /**
     * Asks for capacity. Answers at once with an admission or a rejection, or with a queued
     * decision whose outcome completes later.
     */
    public Decision admit(AdmissionRequest request) {
        long now = clock.nanos();
        TrafficClass c = request.trafficClass();
        if (request.deadlineNanos() <= now) {
            return rejected(request, Rejections.deadlinePassed(c));
        }
        Route route = route(request.path());
        Lane lane = route.lane();
        lane.asked(c, now);
        Optional<Rejection> screened = lane.guard.screen(c, now);
        if (screened.isPresent()) {
            return rejected(request, screened.get());
        }
        long service = request.demand().serviceNanos();
        if (lane.learnService(c, service, now)) {
            announce();
        }
        long toDeadline = request.deadlineNanos() == AdmissionRequest.NO_DEADLINE ? Long.MAX_VALUE
                : request.deadlineNanos() - now;
        if (service > toDeadline) {
            // The call alone outlasts the deadline: the client would give up while it is generating.
            return rejected(request, Rejections.deadlineCannotBeMet(c, toDeadline, new Explanation(Optional.empty(),
                    Optional.empty(), Optional.empty(), false, false, 0, service, 0, true)));
        }
        long classBudget = config.classes().get(c).maxQueueWait().toNanos();
        // What the deadline leaves for waiting once the call's own duration is set aside.
        long deadlineRoom = toDeadline == Long.MAX_VALUE ? Long.MAX_VALUE : toDeadline - callRoom(service);
        long budget = Math.min(classBudget, deadlineRoom);
        boolean deadlineBound = deadlineRoom < classBudget;
        long[] amounts = request.demand().amounts();
        TenantShare share = route.share();
        if (!lane.queuedAtOrAbove(c) && !lane.othersQueuedAtOrAbove(c)) {
            ReserveOutcome o = reserve(route, c, amounts, now);
            if (o instanceof ReserveOutcome.Granted g) {
                return admitted(lane, request, g, amounts, share, 0, 0, now);
            }
            ReserveOutcome.Short s = (ReserveOutcome.Short) o;
            if (s.neverFits()) {
                return rejected(request, Rejections.tooLarge(s));
            }
            if (s.dailyCap()) {
                return rejected(request, Rejections.dailyCapSpent(s));
            }
            // The store's wait is refill arithmetic at the bucket's own factor and pause: the rate in force.
            long wait = s.waitKnown() ? s.waitNanos() : lane.holdNanosAverage();
            boolean paused = s.scope().equals(lane.deploymentPlan() == null ? null : lane.deploymentPlan().scope())
                    && lane.pauseLeft(s.dimension(), now) > 0;
            Explanation why = new Explanation(Optional.of(s.scope()), Optional.of(s.dimension()), Optional.empty(),
                    paused, s.headroomBound(), s.waitKnown() ? wait : Explanation.UNKNOWN, service, budget, deadlineBound);
            if (s.waitKnown() ? wait > classBudget : classBudget <= 0) {
                return rejected(request, Rejections.waitTooLong(s, c, why, config.reserveHolders(c)));
            }
            if (s.waitKnown() ? wait > deadlineRoom : deadlineRoom <= 0) {
                return rejected(request, Rejections.deadlineCannotBeMet(c, toDeadline, why));
            }
            return enqueue(lane, request, amounts, share, now, budget, wait, why);
        }
        // Behind others, here and on the fleet's other replicas (the deployment serves the fleet's queues at its one rate).
        long wait = lane.inForceNanos(lane.fairAheadNanos(c, share) + lane.othersAheadNanos(c) + lane.costNanos(amounts),
                now);
        // What holds the queue's head holds this one too.
        Optional<ReserveOutcome.Short> held = lane.heldBy();
        Explanation why = new Explanation(held.map(ReserveOutcome.Short::scope), held.map(ReserveOutcome.Short::dimension),
                Optional.empty(), lane.anyPaused(now), false, wait, service, budget, deadlineBound);
        if (wait > classBudget) {
            return rejected(request, Rejections.queueBusy(c, why));
        }
        if (wait > deadlineRoom) {
            return rejected(request, Rejections.deadlineCannotBeMet(c, toDeadline, why));
        }
        return enqueue(lane, request, amounts, share, now, budget, wait, why);
    }

    /**
     * Whether {@code deployment} could take {@code demand} of class {@code c} now without waiting:
     * its guard lets the class through, nothing of the class or one served before it waits in its
     * lane, and its own bucket and those of the shared provider scopes it belongs to are not paused
     * and hold the amounts on every limited dimension. A read of those buckets only (the caller's
     * own scopes are on every deployment's path, so they cannot tell deployments apart); nothing is
     * taken, so the answer may be stale by the time the caller reserves, when the reservation
     * itself decides. The routing policy asks it to choose among a profile's deployments without
     * trial and error.
     */
    public boolean hasHeadroom(String deployment, TrafficClass c, Demand demand) {
        long now = clock.nanos();
        Lane lane = lane(deployment);
        if (lane.guard.screen(c, now).isPresent() || lane.queuedAtOrAbove(c) || lane.othersQueuedAtOrAbove(c)) {
            return false;
        }
        long[] amounts = demand.amounts();
        for (Scope shared : config.providerScopesOf(deployment)) {
            Optional<BucketPlan> plan = plan(shared);
            if (plan.isPresent() && !holds(plan.get(), amounts)) {
                return false;
            }
        }
        Optional<BucketPlan> plan = plan(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, deployment));
        return plan.isEmpty() || holds(plan.get(), amounts);
    }

    /** Whether {@code plan}'s bucket is unpaused and would take {@code amounts} now, as the store judges it. */
    private boolean holds(BucketPlan plan, long[] amounts) {
        for (BucketState.DimensionState d : store.state(plan).dimensions()) {
            long need = amounts[d.dimension().ordinal()];
            if (need > plan.ceiling(d.dimension())) {
                // Never fits: admission would refuse it as too large, so there is no room for it here.
                return false;
            }
            // As the store judges it: a rate request larger than the bucket (a short window's
            // allowance, an adapted capacity) goes when the bucket is full.
            double required = d.dimension().kind() == Dimension.Kind.RATE
                    ? Math.min(need, d.capacity() * d.rateFactor()) : need;
            if (d.pausedForNanos() > 0 || d.available() < required - 1e-9) {
                return false;
            }
        }
        return true;
    }

    private Decision enqueue(Lane lane, AdmissionRequest request, long[] amounts, TenantShare share, long now,
            long budget, long expectedWait, Explanation why) {
        TrafficClass c = request.trafficClass();
        ClassPolicy policy = config.classes().get(c);
        if (lane.queuedIn(c) >= policy.maxQueueLength()) {
            return rejected(request, Rejections.queueFull(c, lane.queuedIn(c),
                    Math.max(expectedWait, lane.inForceNanos(lane.aheadNanos(c) + lane.othersAheadNanos(c), now)), why));
        }
        List<Runnable> done = new ArrayList<>();
        Waiter w;
        synchronized (lane) {
            w = lane.enqueue(request, amounts, share, now, now + budget);
            w.deadlineBound = why.deadlineBound();
            w.explanation = why;
            // Capacity may have come back between the failed reservation and now: look once more.
            lane.pump(this, now, done);
        }
        done.forEach(Runnable::run);
        announce();
        if (w.outcome.isDone()) {
            return w.outcome.join();
        }
        return new Decision.Queued(expectedWait, why, w.outcome, () -> withdraw(lane, w));
    }

    /** {@link Decision.Withdrawal#withdraw} of a waiter. */
    private boolean withdraw(Lane lane, Waiter w) {
        List<Runnable> done = new ArrayList<>();
        synchronized (lane) {
            if (!lane.withdraw(w)) {
                return false;
            }
            // Whoever it held back may fit now.
            lane.pump(this, clock.nanos(), done);
        }
        // Not passed to the listeners: a client leaving says nothing about capacity.
        w.outcome.complete(new Decision.Rejected(Rejections.withdrawn(w.request.trafficClass())));
        done.forEach(Runnable::run);
        announce();
        return true;
    }

    ReserveOutcome tryReserve(AdmissionRequest request, long[] amounts) {
        return reserve(route(request.path()), request.trafficClass(), amounts, clock.nanos());
    }

    private ReserveOutcome reserve(Route route, TrafficClass c, long[] amounts, long now) {
        return route.buckets().reserve(amounts, leaseTtlNanos, route.lane().headroom(c, route.shared(), now, config));
    }

    Decision.Final admitted(Lane lane, AdmissionRequest request, ReserveOutcome.Granted g, long[] amounts,
            TenantShare share, long queuedNanos, long sharedWaitNanos, long now) {
        // Judged before this request counts: beyond a guarantee already met, it borrows.
        boolean borrowed = !share.guaranteed.isEmpty() && !share.belowGuarantee(now);
        share.recordAdmit(amounts, now);
        if (nextSweep == Long.MAX_VALUE) {
            nextSweep = now + config.leaseSweepInterval().toNanos();
            announce();
        }
        Decision.Final d = new Decision.Admitted(new Reservation(this, lane, g.lease(), request, now, lane.costNanos(amounts)),
                queuedNanos,
                sharedWaitNanos, lane.guard.brownout(now), borrowed);
        for (GovernorListener l : listeners) {
            l.onDecision(request, d);
        }
        return d;
    }

    Decision.Final rejected(AdmissionRequest request, Rejection r) {
        Decision.Final d = new Decision.Rejected(r);
        for (GovernorListener l : listeners) {
            l.onDecision(request, d);
        }
        return d;
    }

    SettleOutcome settle(Reservation r, Usage actual) {
        SettleOutcome o = store.settle(r.lease(), actual.amounts());
        if (o != SettleOutcome.ALREADY_CLOSED) {
            r.lane().creditBack(r.costNanos() - r.lane().costNanos(actual.amounts()));
        }
        return ended(r, actual, o);
    }

    SettleOutcome release(Reservation r) {
        SettleOutcome o = store.release(r.lease());
        if (o != SettleOutcome.ALREADY_CLOSED) {
            r.lane().creditBack(r.costNanos());
        }
        return ended(r, new Usage(0, 0), o);
    }

    private SettleOutcome ended(Reservation r, Usage actual, SettleOutcome o) {
        if (o == SettleOutcome.ALREADY_CLOSED) {
            return o;
        }
        long now = clock.nanos();
        r.lane().recordHold(now - r.admittedAtNanos());
        for (GovernorListener l : listeners) {
            l.onSettled(r, actual, o);
        }
        pumpQueued(now);
        return o;
    }

    /** The time at which {@link #onTimer()} has work to do; {@link Long#MAX_VALUE} if none. */
    public long nextWakeupNanos() {
        long next = store.openLeases() > 0 ? nextSweep : Long.MAX_VALUE;
        for (Lane lane : lanes.values()) {
            next = Math.min(next, lane.wakeAt());
        }
        return next;
    }

    /**
     * Does what is due: expires leases, gives up on waiters past their budget, admits what now
     * fits. Calling it early or often is harmless.
     */
    public void onTimer() {
        long now = clock.nanos();
        announcedWakeup = Long.MAX_VALUE;
        if (now >= nextSweep) {
            int expired = store.expireLeases();
            nextSweep = store.openLeases() > 0 ? now + config.leaseSweepInterval().toNanos() : Long.MAX_VALUE;
            if (expired > 0) {
                for (GovernorListener l : listeners) {
                    l.onLeasesExpired(expired);
                }
            }
        }
        pumpQueued(now);
        announce();
    }

    private void pumpQueued(long now) {
        List<Runnable> done = null;
        for (Lane lane : laneArray) {
            if (lane.anyQueued()) {
                if (done == null) {
                    done = new ArrayList<>();
                }
                lane.pump(this, now, done);
            }
        }
        if (done != null) {
            done.forEach(Runnable::run);
            announce();
        }
    }

    /** Tells the wake-up hook when the next wake-up moved earlier than what it was last told. */
    private void announce() {
        long next = nextWakeupNanos();
        if (next < announcedWakeup) {
            announcedWakeup = next;
            wakeupHook.accept(next);
        }
    }

    /**
     * Sets who is told (with an absolute time on the governor's clock) when {@link #onTimer()}
     * should next run. Called whenever that time moves earlier; the driver may be woken early.
     */
    public void onWakeup(LongConsumer hook) {
        this.wakeupHook = Objects.requireNonNull(hook, "hook");
        announcedWakeup = Long.MAX_VALUE;
        announce();
    }

    public synchronized void addListener(GovernorListener listener) {
        Objects.requireNonNull(listener, "listener");
        GovernorListener[] next = java.util.Arrays.copyOf(listeners, listeners.length + 1);
        next[next.length - 1] = listener;
        listeners = next;
    }

    /** Tenant settings, for a lane meeting a tenant for the first time. */
    ScopeSettings tenantSettings(String tenant) {
        return config.settings(Scope.of(ScopeLevel.TENANT, tenant));
    }

    /**
     * What this replica has queued, per deployment with anything queued: the configured-rate cost
     * per class (by {@link TrafficClass#ordinal()}), the unit of fair order. A replica sharing its
     * store with others publishes it (off the request path) for theirs to predict waits over the
     * fleet's queues and to share refills ({@link #othersQueued}).
     */
    public List<QueuedDemand> queuedDemand() {
        List<QueuedDemand> out = new ArrayList<>();
        for (Lane lane : laneArray) {
            if (lane.anyQueued()) {
                out.add(new QueuedDemand(lane.deployment, lane.queuedCostNanos()));
            }
        }
        return out;
    }

    /**
     * What the fleet's other replicas have queued for {@code deployment}, summed as they last
     * published it (an empty array entry, or all zeros, when nothing). From then on, a request of
     * a class with work queued anywhere in the fleet at or above it queues behind that work, its
     * wait is predicted over the fleet's queued cost at the deployment's rate, and this replica
     * takes only its queue's part of each refill. One replica never calls it.
     */
    public void othersQueued(String deployment, long[] costNanosByClass) {
        Objects.requireNonNull(deployment, "deployment");
        if (costNanosByClass.length != TrafficClass.values().length) {
            throw new IllegalArgumentException("costNanosByClass: " + costNanosByClass.length + " entries (expected: "
                    + TrafficClass.values().length + ", one per class)");
        }
        Lane lane = lane(deployment);
        lane.othersQueued(costNanosByClass);
        pumpQueued(clock.nanos());
        announce();
    }

    /** Installs the adaptive controller's view of a deployment's mode. */
    public void guard(String deployment, DeploymentGuard guard) {
        lane(deployment).guard = Objects.requireNonNull(guard, "guard");
    }

    /**
     * Adaptive control of a deployment's bucket: refill scaled by {@code rateFactor} in (0, 1] and
     * admission paused for {@code pauseNanos} (0 lifts it).
     */
    public void control(String deployment, Dimension dimension, double rateFactor, long pauseNanos) {
        plan(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, deployment))
                .ifPresent(p -> store.control(p, dimension, rateFactor, pauseNanos));
        long now = clock.nanos();
        lane(deployment).control(dimension, rateFactor, pauseNanos > 0 ? now + pauseNanos : 0);
        pumpQueued(now);
        announce();
    }

    /**
     * Adaptive control of a shared provider scope's bucket ({@link ScopeLevel#PROVIDER_SCOPE}), as
     * {@link #control} does for a deployment's: a provider refusal naming the shared quota slows or
     * pauses every deployment of the scope, not only the one that heard it.
     */
    public void controlShared(Scope scope, Dimension dimension, double rateFactor, long pauseNanos) {
        if (scope.level() != ScopeLevel.PROVIDER_SCOPE) {
            throw new IllegalArgumentException("scope: " + scope + " (expected: a provider scope)");
        }
        plan(scope).filter(p -> p.limits(dimension)).ifPresent(p -> store.control(p, dimension, rateFactor, pauseNanos));
        pumpQueued(clock.nanos());
        announce();
    }

    /**
     * Paces a caller's scope (a tenant warming up): its bucket's refill in {@code dimension} scaled
     * by {@code rateFactor} in (0, 1]; 1 restores the configured rate. Requests the bucket cannot
     * take wait in their lane's queue as for any limit. Nothing happens for a scope without a limit
     * in {@code dimension}.
     */
    public void pace(Scope scope, Dimension dimension, double rateFactor) {
        if (scope.level() == ScopeLevel.PROVIDER_DEPLOYMENT || scope.level() == ScopeLevel.PROVIDER_SCOPE) {
            throw new IllegalArgumentException("scope: " + scope + " (expected: a caller's scope; control() paces providers)");
        }
        plan(scope).filter(p -> p.limits(dimension)).ifPresent(p -> store.control(p, dimension, rateFactor, 0));
        pumpQueued(clock.nanos());
        announce();
    }

    /**
     * Lowers a caller's scope's bucket in {@code dimension} to {@code remaining} (never raises it): a
     * warm-up starts from what its first second allows, not from a full bucket's burst.
     */
    public void drain(Scope scope, Dimension dimension, long remaining) {
        if (scope.level() == ScopeLevel.PROVIDER_DEPLOYMENT || scope.level() == ScopeLevel.PROVIDER_SCOPE) {
            throw new IllegalArgumentException("scope: " + scope + " (expected: a caller's scope; syncDown() lowers providers)");
        }
        plan(scope).filter(p -> p.limits(dimension)).ifPresent(p -> store.syncDown(p, dimension, remaining));
        announce();
    }

    /** The provider says less is left than we believe: lower the deployment's bucket to {@code remaining}. */
    public void syncDown(String deployment, Dimension dimension, long remaining) {
        plan(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, deployment))
                .filter(p -> p.limits(dimension))
                .ifPresent(p -> store.syncDown(p, dimension, remaining));
        announce();
    }

    /** Swaps the configuration; leases in flight keep what they hold and settle against the same buckets. */
    public void reconfigure(GovernorConfig next) {
        reconfigure(next, Set.of()).run();
    }

    /**
     * Swaps the configuration and forgets the deployments in {@code retired}, which it no longer
     * has: their lanes go, so nothing waiting there is admitted under the new configuration
     * (where they have no limits). Leases in flight, on them too, keep what they hold and settle
     * against the same buckets. A deployment of the same id added again later starts with a new
     * lane; its buckets, which the store keeps under their scope, are as they were.
     *
     * @return answers every request that waited on a retired deployment with a
     *     {@code deployment_removed} refusal by that deployment's scope (which its caller may route
     *     elsewhere): to run once the caller has put the new configuration in force everywhere, so
     *     that a request moved elsewhere is routed by it
     */
    public Runnable reconfigure(GovernorConfig next, Set<String> retired) {
        this.config = Objects.requireNonNull(next, "config");
        this.leaseTtlNanos = next.leaseTtl().toNanos();
        List<Waiter> evicted = new ArrayList<>();
        if (!retired.isEmpty()) {
            synchronized (this) {
                for (String id : retired) {
                    Lane gone = lanes.remove(id);
                    if (gone != null) {
                        evicted.addAll(gone.evictAll());
                    }
                }
                laneArray = lanes.values().toArray(Lane[]::new);
            }
        }
        plans.clear();
        routes.clear();
        for (Lane lane : lanes.values()) {
            lane.replan(plan(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, lane.deployment)).orElse(null));
            for (TenantShare s : lane.shares()) {
                lane.reweigh(s.tenant, next.settings(Scope.of(ScopeLevel.TENANT, s.tenant)));
            }
        }
        pumpQueued(clock.nanos());
        if (evicted.isEmpty()) {
            return () -> { };
        }
        return () -> {
            for (Waiter w : evicted) {
                Scope scope = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, w.request.path().deployment());
                w.outcome.complete(rejected(w.request, Rejection.deploymentRemoved(w.request.trafficClass(), scope)));
            }
            announce();
        };
    }

    public GovernorConfig config() {
        return config;
    }

    public NanoClock clock() {
        return clock;
    }

    public QuotaStore store() {
        return store;
    }

    /** The state of one scope's bucket, if it has limits. */
    public Optional<BucketState> bucket(Scope scope) {
        return plan(scope).map(store::state);
    }

    public GovernorSnapshot snapshot() {
        long now = clock.nanos();
        List<BucketState> buckets = new ArrayList<>();
        for (Scope s : config.scopes().keySet()) {
            plan(s).ifPresent(p -> buckets.add(store.state(p)));
        }
        buckets.sort(java.util.Comparator.comparing(BucketState::key));
        List<GovernorSnapshot.LaneSnapshot> laneSnapshots = new ArrayList<>();
        for (Lane lane : lanes.values()) {
            laneSnapshots.add(lane.snapshot(now, t -> config.settings(Scope.of(ScopeLevel.TENANT, t))));
        }
        laneSnapshots.sort(java.util.Comparator.comparing(GovernorSnapshot.LaneSnapshot::deployment));
        return new GovernorSnapshot(now, buckets, laneSnapshots);
    }

    private Lane lane(String deployment) {
        Lane lane = lanes.get(deployment);
        if (lane == null) {
            synchronized (this) {
                lane = lanes.computeIfAbsent(deployment,
                        d -> new Lane(d, plan(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, d)).orElse(null)));
                laneArray = lanes.values().toArray(Lane[]::new);
            }
        }
        return lane;
    }

    private Route route(RequestPath p) {
        Route r = routes.get(p);
        if (r == null) {
            List<BucketPlan> list = new ArrayList<>(7);
            for (Scope s : p.scopes()) {
                if (s.level() == ScopeLevel.PROVIDER_DEPLOYMENT) {
                    // The shared provider quotas above the deployment come just before its own bucket.
                    for (Scope shared : config.providerScopesOf(s.id())) {
                        plan(shared).ifPresent(list::add);
                    }
                }
                plan(s).ifPresent(list::add);
            }
            Lane lane = lane(p.deployment());
            r = new Route(store.bind(list.toArray(BucketPlan[]::new)), lane, lane.share(p.tenant(), this),
                    shared(list));
            routes.put(p, r);
        }
        return r;
    }

    /**
     * The path's shared buckets, by index: those no tenant owns (the deployment, the model
     * profile, the organisation), which keep the class reserves. A tenant's, team's or key's own
     * bucket is its ceiling, shared with nobody else, and keeps none.
     */
    private static int shared(List<BucketPlan> path) {
        int shared = 0;
        for (int i = 0; i < path.size(); i++) {
            if (!path.get(i).scope().level().ownedByTenant()) {
                shared |= 1 << i;
            }
        }
        return shared;
    }

    private Optional<BucketPlan> plan(Scope scope) {
        Optional<BucketPlan> p = plans.get(scope);
        if (p == null) {
            p = plans.computeIfAbsent(scope, s -> {
                ScopeSettings settings = config.settings(s);
                return settings.limits().isEmpty() ? Optional.empty() : Optional.of(BucketPlan.of(s, settings.limits()));
            });
        }
        return p;
    }
}
