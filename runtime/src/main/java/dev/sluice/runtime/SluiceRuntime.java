package dev.sluice.runtime;

import dev.sluice.adapt.AdaptiveControllers;
import dev.sluice.adapt.AdaptiveController;
import dev.sluice.estimate.EstimatorConfig;
import dev.sluice.estimate.ServiceTimes;
import dev.sluice.estimate.TokenEstimator;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.ProviderScopeConfig;
import dev.sluice.adapt.SharedQuotaPolicy;
import dev.sluice.limits.Dimension;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.deploy.DeploymentChanges;
import dev.sluice.runtime.deploy.LiveDeployments;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.runtime.request.InvalidRefunds;
import dev.sluice.runtime.request.RequestCounters;
import dev.sluice.runtime.request.RequestLifecycle;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.request.RequestThread;
import dev.sluice.runtime.deploy.RetryBudget;
import dev.sluice.runtime.request.StoreCalls;
import dev.sluice.runtime.rollout.RolloutAnalysis;
import dev.sluice.runtime.rollout.RolloutRouting;
import dev.sluice.runtime.rollout.Rollouts;
import dev.sluice.runtime.routing.ProfileRouting;
import dev.sluice.runtime.routing.RoutingPolicy;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.store.QuotaStore;
import dev.sluice.time.NanoClock;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.control.Pause;
import dev.sluice.runtime.control.Pauses;
import dev.sluice.runtime.control.RetiredSecrets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * One assembly of what decides about requests: the configuration, the governor over its quota
 * store, the token estimator, the adaptive controllers, the routing policy, the retry budgets,
 * the request counters and the event stream. The gateway and the simulator each build one and
 * drive every request through {@link #arrive}; neither holds a rule of its own.
 *
 * <p>It has no threads. Its host calls {@link #onTimer()} when the governor asks
 * ({@link QuotaGovernor#onWakeup}) and {@link #tick()} every {@link AdaptiveControllers#TICK_INTERVAL}.
 */
public final class SluiceRuntime {

    /** Swapped whole by {@link #change}: a request reads one consistent tree. */
    private volatile SluiceConfig config;
    private volatile FleetPeers fleet = FleetPeers.none();
    private final Pauses pauses = new Pauses();
    private final RetiredSecrets retired = new RetiredSecrets();
    private final List<Consumer<SluiceConfig>> changed = new CopyOnWriteArrayList<>();
    private final NanoClock clock;
    private final QuotaGovernor governor;
    private final TokenEstimator estimator;
    private final ServiceTimes serviceTimes = new ServiceTimes();
    private final AdaptiveControllers adaptive;
    private final RoutingPolicy routing;
    private final RequestEventSink events;
    private final Rollouts rollouts;
    private final dev.sluice.runtime.rollout.Warmups warmups;
    private final RequestCounters counters = new RequestCounters();
    private final InvalidRefunds invalidRefunds;
    private final StoreCalls storeCalls;
    private final LiveDeployments deployments;
    /** The routing over profiles the runtime made, told of every change; none when the host brought its own. */
    private final ProfileRouting profileRouting;

    private SluiceRuntime(Builder b) {
        this.config = b.config;
        this.clock = b.clock;
        this.invalidRefunds = b.invalidRefunds;
        this.governor = new QuotaGovernor(config.governorConfig(), b.store, clock);
        this.estimator = new TokenEstimator(b.estimatorConfig, clock);
        this.profileRouting = b.routing != null ? null : new ProfileRouting(config);
        RoutingPolicy routing = b.routing != null ? b.routing : profileRouting;
        this.deployments = new LiveDeployments(config.deployments());
        // Rollouts route through the seam and measure their targets from the events; the admin API
        // may add one at any time, so the seam is there with none.
        this.rollouts = new Rollouts(config, clock, this::targetState);
        changed.add(rollouts::reconcile);
        routing = new RolloutRouting(routing, rollouts);
        // Likewise the warm-ups: the admin API may add one to a configuration without any.
        this.warmups = new dev.sluice.runtime.rollout.Warmups(config, clock, governor);
        changed.add(warmups::reconcile);
        this.events = RequestEventSink.all(List.of(rollouts, warmups, b.events));
        this.routing = routing;
        // The one place that decides whether store calls leave the caller's thread.
        this.storeCalls = b.store.waitsOnNetwork() && b.workers != null ? StoreCalls.on(b.workers) : StoreCalls.inPlace();
        if (b.adaptive) {
            adaptive = new AdaptiveControllers(governor, id -> config.deployments().get(id).adaptiveConfig(), b.seed);
            governor.addListener(adaptive);
            // Controllers exist before the first request, so a ramp's first stage applies to it.
            for (DeploymentConfig d : config.deployments().values()) {
                if (d.adaptive().enabled()) {
                    adaptive.controller(d.id());
                }
            }
        } else {
            adaptive = null;
        }
        // A key paused in the file is a pause like an operator's, lifted by resuming it.
        Instant now = Instant.ofEpochMilli(clock.epochMillis());
        for (KeyConfig k : config.keys()) {
            if (k.paused()) {
                pauses.put(new Pause(Scope.of(ScopeLevel.API_KEY, k.id()), "paused in " + config.sourceName(),
                        Optional.empty(), "config", now));
            }
        }
        rollouts.startConfigured();
    }

    /** A builder for a runtime serving {@code config} over {@code store}. */
    public static Builder builder(SluiceConfig config, QuotaStore store) {
        return new Builder(config, store);
    }

    /**
     * A request arrived: its lifecycle, which the transport drives on {@code thread} until it
     * ends with one answer (or its client leaves).
     */
    public RequestLifecycle arrive(String traceId, RequestThread thread) {
        counters.recordStarted();
        return RequestLifecycle.arrive(this, traceId, thread);
    }

    /** The configuration in force: the file's, with every change made since. */
    public SluiceConfig config() {
        return config;
    }

    /**
     * Changes the configuration at once, without a restart: {@code edit} makes the next one from
     * the current one (or throws, and nothing changes); the governor takes its limits, weights and
     * guarantees in place (reservations in flight keep what they hold and settle against the same
     * buckets; a lowered limit applies to the next admission), then whoever listens (the gateway's
     * key ring) sees it. Changes are serialised.
     *
     * <p>Deployments may come and go ({@link DeploymentChanges}): one added gets its retry budget,
     * lane and adaptive controller (its ramp from the first stage) here, and is routed to once a
     * profile names it; one removed is routed to no more from this change on, the requests waiting
     * for it are routed again by their profile (or answered {@code deployment_removed}), and its
     * attempts in flight finish and settle before it closes ({@link LiveDeployments#onClosed}); one
     * replaced (another connection under the same id) keeps its buckets and queue, its attempts in
     * flight finish on the old version, and what is admitted from now on runs on the new one (its
     * adaptive control starts over when the provider or tuning changed). The caller validates the
     * next configuration: every profile must name deployments it has.
     *
     * @return the configuration now in force
     */
    public synchronized SluiceConfig change(UnaryOperator<SluiceConfig> edit) {
        SluiceConfig before = config;
        SluiceConfig after = Objects.requireNonNull(edit.apply(before), "edit result");
        if (after == before) {
            return before;
        }
        DeploymentChanges moved = DeploymentChanges.between(before.deployments(), after.deployments());
        Set<String> controlled = moved.controlStartsOver(before.deployments(), after.deployments());
        // The requests waiting on a removed deployment are answered only once routing knows the change; those
        // waiting on a replaced one stay in its queue and run on the new version.
        Runnable answerWaiting = governor.reconfigure(after.governorConfig(), moved.removed());
        if (adaptive != null) {
            moved.removed().forEach(adaptive::remove);
            controlled.forEach(adaptive::remove);
        }
        deployments.apply(after.deployments(), moved);
        if (profileRouting != null) {
            profileRouting.reconfigure(after);
        }
        config = after;
        if (adaptive != null) {
            Set<String> fresh = new java.util.LinkedHashSet<>(moved.added());
            fresh.addAll(controlled);
            for (String id : fresh) {
                if (after.deployments().get(id).adaptive().enabled()) {
                    adaptive.controller(id);
                }
            }
        }
        changed.forEach(l -> l.accept(after));
        answerWaiting.run();
        return after;
    }

    /** The deployments in force, with their retry budgets and attempts in flight. */
    public LiveDeployments deployments() {
        return deployments;
    }

    /** Calls {@code listener} with every configuration {@link #change} puts in force. */
    public void onChange(Consumer<SluiceConfig> listener) {
        changed.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Old secrets of rotated keys, valid for their overlap. */
    public RetiredSecrets retiredSecrets() {
        return retired;
    }

    /** The scopes paused by an operator; every admission consults them before the governor. */
    public Pauses pauses() {
        return pauses;
    }

    public NanoClock clock() {
        return clock;
    }

    public QuotaGovernor governor() {
        return governor;
    }

    public TokenEstimator estimator() {
        return estimator;
    }

    /** How long calls take once sent, learned per route from answered attempts ({@code RequestLifecycle}). */
    public ServiceTimes serviceTimes() {
        return serviceTimes;
    }

    /** The adaptive controllers, unless adaptive control was switched off. */
    public Optional<AdaptiveControllers> adaptive() {
        return Optional.ofNullable(adaptive);
    }

    /** The other replicas of this one's fleet, as last heard; none for a replica alone. */
    public FleetPeers fleet() {
        return fleet;
    }

    /** Installs what the other replicas of this one's fleet publish (the shared store's fleet view). */
    public void fleet(FleetPeers peers) {
        this.fleet = Objects.requireNonNull(peers, "peers");
    }

    /** The adaptive controller of {@code deployment}, when it has one. */
    public Optional<AdaptiveController> controller(String deployment) {
        return adaptive == null ? Optional.empty() : adaptive.find(deployment);
    }

    public RoutingPolicy routing() {
        return routing;
    }

    public RequestEventSink events() {
        return events;
    }

    /**
     * Each tenant's allowance of invalid requests refunded in full (the request too) on providers
     * that do not count them, {@code server.invalid_refunds_per_minute} a minute.
     */
    public InvalidRefunds invalidRefunds() {
        return invalidRefunds;
    }

    /** Counts of requests, answers and reservations: the lifecycle's two promises, checkable. */
    public RequestCounters counters() {
        return counters;
    }

    /** How store calls are run: in place, or on the host's workers. */
    public StoreCalls storeCalls() {
        return storeCalls;
    }

    /** The budget of gateway retries of the version in force of {@code deployment}. */
    public RetryBudget retryBudget(String deployment) {
        return deployments.version(deployment).map(LiveDeployments.Version::retryBudget)
                .orElseThrow(() -> new IllegalArgumentException("deployment: " + deployment + " (expected: one of "
                        + config.deployments().keySet() + ")"));
    }

    /**
     * Tells adaptive control how an attempt on {@code deployment} was answered. A reaction (a
     * cooldown, a cut, a sync-down) writes to the store, so it runs as a store call.
     */
    public void feed(String deployment, ProviderSignal signal, long latencyNanos) {
        feed(deployment, signal, latencyNanos, Optional.empty());
    }

    /**
     * Tells adaptive control how an attempt of a request of class {@code c} on {@code deployment}
     * was answered (the class tells whether shedding the other classes relieved the provider).
     */
    public void feed(String deployment, ProviderSignal signal, long latencyNanos, TrafficClass c) {
        feed(deployment, signal, latencyNanos, Optional.of(c));
    }

    private void feed(String deployment, ProviderSignal signal, long latencyNanos, Optional<TrafficClass> c) {
        if (adaptive == null) {
            return;
        }
        DeploymentConfig d = config.deployments().get(deployment);
        if (d != null && d.adaptive().enabled()) {
            storeCalls.run(() -> adaptive.onSignal(deployment, signal, latencyNanos, c));
            scopeNamedBy(deployment, signal).ifPresent(shared -> storeCalls.run(() -> pauseShared(d, shared, signal)));
        }
    }

    /**
     * The shared provider scope of {@code deployment} that {@code signal} names: a 429 whose
     * message names the quota by one of the scope's {@code names}. Every deployment of that scope
     * would meet the same refusal.
     */
    public Optional<ProviderScopeConfig> scopeNamedBy(String deployment, ProviderSignal signal) {
        if (signal.quotaOwner().isEmpty()) {
            return Optional.empty();
        }
        SluiceConfig c = config;
        DeploymentConfig d = c.deployments().get(deployment);
        if (d == null) {
            return Optional.empty();
        }
        String owner = signal.quotaOwner().get();
        for (ProviderScopeConfig s : c.providerScopesOf(d)) {
            if (s.names().contains(owner)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** The shared bucket pauses as {@link SharedQuotaPolicy} says, for every deployment of the scope. */
    private void pauseShared(DeploymentConfig d, ProviderScopeConfig shared, ProviderSignal signal) {
        long pause = SharedQuotaPolicy.pauseNanos(signal, d.adaptive().rateWindow().toNanos(),
                d.adaptiveConfig().cooldown());
        if (pause <= 0) {
            return;
        }
        for (Dimension dim : SharedQuotaPolicy.dimensions(signal, x -> shared.limits().get(x).isPresent())) {
            governor.controlShared(shared.scope(), dim, 1.0, pause);
        }
    }

    /**
     * The governor's timed work (queued requests whose capacity came back, leases that expired),
     * then {@code then} on whichever thread ran it.
     */
    public void onTimer(Runnable then) {
        storeCalls.call(() -> {
            governor.onTimer();
            return null;
        }, RequestThread.inPlace(), (v, e) -> then.run());
    }

    /** The adaptive controllers' periodic step (recovery, ramp stages, mode decay), then the rollouts' analysis. */
    public void tick() {
        if (adaptive != null) {
            storeCalls.run(adaptive::tick);
        }
        rollouts.tick();
        warmups.tick();
    }

    /**
     * A shadow copy of {@code plan}, which runs on {@code ranOn}, for its profile's rollout target
     * ({@link Rollouts#shadowFor}), admitted on the target's buckets alone (no scope of the caller's
     * is charged: the copy is on a path of the {@code shadow} scopes, which have no limits) in the
     * background class and only when the target has room at once: a copy never waits and never
     * takes a reserve. Empty when there is no copy to send. The caller must end the copy with
     * {@link ShadowCopy#end}.
     */
    public Optional<ShadowCopy> shadow(RequestPlan plan, String ranOn) {
        Optional<DeploymentConfig> target = rollouts.shadowFor(plan, ranOn);
        if (target.isEmpty()) {
            return Optional.empty();
        }
        DeploymentConfig d = target.get();
        long now = clock.nanos();
        long service = serviceTimes.predictNanos(d.id() + "|" + plan.estimateKey(), plan.estimate().outputTokens());
        dev.sluice.governor.Demand demand = new dev.sluice.governor.Demand(plan.estimate().inputTokens(),
                plan.estimate().outputTokens(), false, service, 0);
        dev.sluice.governor.RequestPath path = new dev.sluice.governor.RequestPath(SHADOW, SHADOW, SHADOW + "/" + SHADOW,
                SHADOW, plan.profile().id(), d.id());
        // A deadline that leaves no room to wait: admitted now or not at all.
        long deadline = now + Math.max(service, 1) * 3 + 1_000_000;
        dev.sluice.governor.Decision decision = governor.admit(new dev.sluice.governor.AdmissionRequest(
                plan.traceId() + "-shadow", path, demand, TrafficClass.BACKGROUND, deadline));
        if (decision instanceof dev.sluice.governor.Decision.Queued q) {
            // Not expected with that deadline; a late grant is given back at once.
            q.outcome().thenAccept(f -> {
                if (f instanceof dev.sluice.governor.Decision.Admitted late) {
                    late.reservation().release();
                }
            });
            return Optional.empty();
        }
        if (!(decision instanceof dev.sluice.governor.Decision.Admitted a)) {
            return Optional.empty();
        }
        counters.recordReservationOpened();
        return Optional.of(new ShadowCopy(d, a.reservation(), plan.estimate().inputTokens(),
                plan.estimate().outputTokens(), now));
    }

    /** The scopes a shadow copy is admitted on beside the target's: none of them has a limit. */
    static final String SHADOW = "shadow";

    /**
     * A shadow copy admitted on a rollout's target. {@link #end} it once with how it went: answered
     * it is charged what it reserved (its answer is not read), refused or failed it is released.
     */
    public final class ShadowCopy {
        private final DeploymentConfig target;
        private final dev.sluice.governor.Reservation reservation;
        private final long input;
        private final long output;
        private final long startedAt;
        private boolean ended;

        ShadowCopy(DeploymentConfig target, dev.sluice.governor.Reservation reservation, long input, long output,
                long startedAt) {
            this.target = target;
            this.reservation = reservation;
            this.input = input;
            this.output = output;
            this.startedAt = startedAt;
        }

        public DeploymentConfig target() {
            return target;
        }

        /** Ends the copy: its result counts in the rollout's figures for the target. */
        public synchronized void end(dev.sluice.runtime.event.AttemptResult result) {
            if (ended) {
                return;
            }
            ended = true;
            if (result == dev.sluice.runtime.event.AttemptResult.ANSWERED) {
                reservation.settle(new dev.sluice.governor.Usage(input, output, 0));
                counters.recordReservationSettled();
            } else {
                reservation.release();
                counters.recordReservationReleased();
            }
            rollouts.onShadow(target.id(), result, clock.nanos() - startedAt);
        }
    }

    /** The warm-ups of scheduled jobs in force: the file's ({@code warmups:}) and the admin API's; maybe none. */
    public dev.sluice.runtime.rollout.Warmups warmups() {
        return warmups;
    }

    /** The rollouts in force: the file's and those added through the admin API; maybe none. */
    public Rollouts rollouts() {
        return rollouts;
    }

    /** What a rollout's target can take now: its adaptive mode and ramp, its configured per-minute limits. */
    private RolloutAnalysis.TargetState targetState(String deployment) {
        Map<dev.sluice.limits.Dimension, Long> limits = new HashMap<>();
        config.deployments().get(deployment).limits().all().forEach(l -> {
            if (l.dimension().kind() == dev.sluice.limits.Dimension.Kind.RATE) {
                limits.put(l.dimension(), l.amount());
            }
        });
        return controller(deployment).map(AdaptiveController::snapshot)
                .map(s -> new RolloutAnalysis.TargetState(s.mode(), s.rampFraction(), limits))
                .orElseGet(() -> new RolloutAnalysis.TargetState(dev.sluice.adapt.Mode.NORMAL, 1, limits));
    }

    /** Closes the quota store. */
    public void close() {
        governor.store().close();
    }

    /** Builds a {@link SluiceRuntime}. */
    public static final class Builder {
        private final SluiceConfig config;
        private final QuotaStore store;
        private NanoClock clock = NanoClock.system();
        private EstimatorConfig estimatorConfig = EstimatorConfig.defaults();
        private boolean adaptive = true;
        private long seed = 1;
        private Executor workers;
        private RoutingPolicy routing;
        private RequestEventSink events = RequestEventSink.none();
        private InvalidRefunds invalidRefunds = InvalidRefunds.local();

        private Builder(SluiceConfig config, QuotaStore store) {
            this.config = Objects.requireNonNull(config, "config");
            this.store = Objects.requireNonNull(store, "store");
        }

        public Builder clock(NanoClock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        public Builder estimatorConfig(EstimatorConfig c) {
            this.estimatorConfig = Objects.requireNonNull(c, "estimatorConfig");
            return this;
        }

        /**
         * Whether deployments with {@code adaptive.enabled} get an adaptive controller (default: yes).
         * Off leaves every deployment at its configured limits.
         */
        public Builder adaptive(boolean on) {
            this.adaptive = on;
            return this;
        }

        /** Seeds the adaptive controllers' random draws. */
        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /**
         * Threads that may wait: store calls run there when the store waits on the network. Without
         * them every store call runs in place (the simulator, which waits in virtual time).
         */
        public Builder workers(Executor w) {
            this.workers = Objects.requireNonNull(w, "workers");
            return this;
        }

        /** The routing policy; by default every attempt goes to its profile's deployment. */
        public Builder routing(RoutingPolicy r) {
            this.routing = Objects.requireNonNull(r, "routing");
            return this;
        }

        /** Where request and attempt events go. */
        public Builder events(RequestEventSink e) {
            this.events = Objects.requireNonNull(e, "events");
            return this;
        }

        /**
         * Where the tenants' refunds of invalid requests are counted; by default in this process
         * ({@link InvalidRefunds#local()}). A fleet on a shared store passes the store's, so that
         * the allowance is the fleet's.
         */
        public Builder invalidRefunds(InvalidRefunds r) {
            this.invalidRefunds = Objects.requireNonNull(r, "invalidRefunds");
            return this;
        }

        public SluiceRuntime build() {
            return new SluiceRuntime(this);
        }
    }
}
