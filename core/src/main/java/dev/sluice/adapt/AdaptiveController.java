package dev.sluice.adapt;

import dev.sluice.governor.ClassPolicy;
import dev.sluice.governor.DeploymentGuard;
import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.Rejection;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.ramp.RampGovernor;
import dev.sluice.signal.LimitObservation;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalStatus;
import dev.sluice.store.BucketState;
import dev.sluice.time.NanoClock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;

/**
 * Adaptive control of one provider deployment: learns from every answer the deployment gives and
 * applies what it learns through the governor ({@link QuotaGovernor#control},
 * {@link QuotaGovernor#syncDown}, {@link QuotaGovernor#guard}), so it works the same with any
 * quota store.
 *
 * <ul>
 *   <li>Cooldown: a 429 or overload pauses the rate the provider named (all of the deployment's
 *       rates when it named none) for the retry delay plus jitter, or the floor when it gave none;
 *       a named rate at most for the time its short window takes to refill, never above
 *       {@link CooldownConfig#rateWindow()} ({@link CooldownPolicy#namedRateCapNanos}), an
 *       overload at most {@link CooldownConfig#faultMax()}, after which one probe request goes
 *       first until an answer that is not a fault. A request that may not wait as long as a pause
 *       has left is refused as cooling down, with the cause in words.
 *   <li>Multiplier: each rate runs at its configured amount times a multiplier cut by x0.65 on a
 *       fresh 429 or overload and raised by +0.03 per success (shared, or per rate). A refusal of a
 *       request sent before the last cut is stale and does not cut again.
 *   <li>Correction: a remaining figure below what the bucket believes syncs the bucket down at
 *       once; limit figures that consistently differ from the configured limit are adopted as the
 *       limit in force (never above the configured one) and reported as {@link LimitDrift}.
 *   <li>Without limit figures, the share of recent requests that succeeded at a fresh 429 sets a
 *       ceiling on the multiplier, which climbs back slowly while answers are clean.
 *   <li>Ramp: a {@link RampGovernor} bounds the multiplier from above on cold start, after a long
 *       cooldown and after an idle spell. The rate factor of a rate is
 *       {@code observed-limit factor * min(multiplier, ramp)}: the ramp and the multiplier are two
 *       ceilings on the same quantity, so the tighter one binds; multiplying them would punish a
 *       ramping deployment twice for one 429.
 *   <li>Modes: normal, caution, brownout, load shedding, from the multiplier, 429 ratio, queue
 *       pressure and latency ({@link ModePolicy}); load shedding only under sustained refusals,
 *       interactive shed last ({@link SheddingConfig}); as the deployment's
 *       {@link DeploymentGuard} it refuses what the mode excludes before any bucket is touched.
 *   <li>Optional SRE-style client-side throttling ({@link ClientThrottleConfig}).
 * </ul>
 *
 * <p>Drive it with {@link #onSignal} for every answer, and {@link #tick()} about once a second
 * (modes must be able to relax when no traffic flows). Thread-safe. {@link #screen} and
 * {@link #brownout} never take the state lock, because the governor calls them while holding its
 * own; the state lock is held while calling the governor, never the other way round.
 */
public final class AdaptiveController implements DeploymentGuard {

    /** Modes and the ramp are judged at most this often from answers; {@link #tick()} always judges. */
    static final long EVALUATION_SPACING_NANOS = 250_000_000L;

    private static final Dimension[] RATES = {Dimension.REQUESTS, Dimension.INPUT_TOKENS, Dimension.OUTPUT_TOKENS,
            Dimension.TOTAL_TOKENS};

    private final String deployment;
    private final Scope scope;
    private final AdaptiveConfig config;
    private final QuotaGovernor governor;
    private final NanoClock clock;
    private final RandomGenerator random;
    private final List<AdaptiveListener> listeners = new CopyOnWriteArrayList<>();

    // Read without the state lock by screen() and brownout().
    private volatile ModeState modeState;
    private volatile long guardPausedUntil = Long.MIN_VALUE;
    /** While shedding: whether refusals went on after the others were shed, so the shed-last classes go too. */
    private volatile boolean shedDeep;
    /** The longest pause in force and what caused it, for the words of a refusal. */
    private volatile PauseNotice notice = PauseNotice.NONE;
    /** When a request of a class that load shedding still serves last asked: whom shedding protects. */
    private volatile long protectedAskedNanos = Long.MIN_VALUE / 2;
    /** After an overload's pause: one request at a time goes first, until an answer that is not a fault. */
    private final AtomicReference<Probe> probe = new AtomicReference<>();
    private final ClientThrottle throttle;
    private final PressureGauge gauge;

    // Guarded by this.
    private final double[] multiplier = new double[Dimension.COUNT];
    private double ceiling = 1.0;
    private final DriftPolicy.State[] drift = new DriftPolicy.State[Dimension.COUNT];
    private final long[] pausedUntil = new long[Dimension.COUNT];
    private final double[] pushedFactor = new double[Dimension.COUNT];
    private final long[] pushedPauseUntil = new long[Dimension.COUNT];
    private final long[] figureSentAt = new long[Dimension.COUNT];
    private final RampGovernor ramp;
    private long lastCutNanos = Long.MIN_VALUE;
    /** Up to when the multiplier has been given its climb by clean time ({@link #recoverByTime}). */
    private long timeRecoveredNanos = Long.MIN_VALUE / 2;
    /** How many times the climb by clean time is halved ({@link MultiplierPolicy#slowdownsAfterCut}). */
    private int climbSlowdowns;
    /** Whether the climb by clean time raised the multiplier since the last cut. */
    private boolean climbedByTime;
    /** Successful answers this replica has seen, ever: what it publishes so the fleet recovers by all of them. */
    private long successes;
    /** When the last few fresh refusals arrived: the sustained-pressure test. */
    private final RecentTimes freshRefusals;
    /** The same for requests of classes still served while shedding: the test for shedding those too. */
    private final RecentTimes servedRefusals;
    private long lastLimitFigureNanos = Long.MIN_VALUE;
    private long lastEvaluationNanos;
    private long ceilingCheckedNanos;
    /** When an answer last came while the ramp was the tighter ceiling: no ceiling is learned from that window. */
    private long rampBoundNanos = Long.MIN_VALUE / 2;
    private ModePolicy.Readings readings = new ModePolicy.Readings(1, 0, 0, 0);

    private record ModeState(Mode mode, long sinceNanos) {}

    /**
     * What the fleet's other replicas published for this deployment, merged, as read at
     * {@code readAtNanos} by the replica {@code self}, standing until {@code untilNanos}.
     */
    private record FleetState(FleetAdaptive others, String self, long readAtNanos, long untilNanos) {
        static final FleetState NONE = new FleetState(FleetAdaptive.CALM, "", Long.MIN_VALUE, Long.MIN_VALUE);
    }

    // Read without the state lock by screen() and brownout().
    private volatile FleetState fleet = FleetState.NONE;

    /** A pause until {@code untilNanos}, worded as its {@code cause} ("the provider answered 503 (overloaded)"). */
    private record PauseNotice(long untilNanos, String cause) {
        static final PauseNotice NONE = new PauseNotice(Long.MIN_VALUE, "");
    }

    /**
     * Probing after an overload's pause: from {@code fromNanos} one request is let through at
     * {@code nextNanos}, the next one a floor later, until an answer that is not a fault arrives.
     */
    private record Probe(long fromNanos, long nextNanos, String cause) {}

    private AdaptiveController(String deployment, AdaptiveConfig config, QuotaGovernor governor,
            RandomGenerator random) {
        this.deployment = Objects.requireNonNull(deployment, "deployment");
        this.config = Objects.requireNonNull(config, "config");
        this.governor = Objects.requireNonNull(governor, "governor");
        this.random = Objects.requireNonNull(random, "random");
        this.clock = governor.clock();
        this.scope = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, deployment);
        long now = clock.nanos();
        this.modeState = new ModeState(Mode.NORMAL, now);
        this.throttle = new ClientThrottle(config.clientThrottle());
        this.gauge = new PressureGauge(config, now);
        this.ramp = new RampGovernor(config.ramp(), now);
        Arrays.fill(multiplier, 1.0);
        Arrays.fill(drift, DriftPolicy.State.initial());
        Arrays.fill(pausedUntil, Long.MIN_VALUE);
        Arrays.fill(pushedFactor, Double.NaN);
        Arrays.fill(pushedPauseUntil, Long.MIN_VALUE);
        Arrays.fill(figureSentAt, Long.MIN_VALUE);
        this.freshRefusals = new RecentTimes(config.modes().shedding().refusals());
        this.servedRefusals = new RecentTimes(config.modes().shedding().refusals());
        this.lastEvaluationNanos = now - EVALUATION_SPACING_NANOS;
        this.ceilingCheckedNanos = now;
    }

    /**
     * Creates the controller of {@code deployment}, installs it as the deployment's guard and
     * applies the ramp's first stage to the deployment's bucket at once.
     *
     * @param deployment the provider deployment id, as in the governor's configuration
     * @param config its tuning
     * @param governor the governor whose deployment bucket it controls; its clock is the controller's
     * @param random jitter and client-side throttling draws; seed it for reproducible runs
     */
    public static AdaptiveController attach(String deployment, AdaptiveConfig config, QuotaGovernor governor,
            RandomGenerator random) {
        AdaptiveController c = new AdaptiveController(deployment, config, governor, random);
        governor.guard(deployment, c);
        synchronized (c) {
            c.push(c.clock.nanos(), c.limits());
        }
        return c;
    }

    public String deployment() {
        return deployment;
    }

    public AdaptiveConfig config() {
        return config;
    }

    /** The operating mode this replica's own observations put the deployment in: what it publishes to a fleet. */
    public Mode mode() {
        return modeState.mode();
    }

    /**
     * The mode admission applies at {@code nowNanos}: the more severe of this replica's own and
     * the fleet's (as last given to {@link #fleetMode}, while it stands), so that every replica
     * answers a client the same way whichever one it reaches.
     */
    public Mode modeInForce(long nowNanos) {
        Mode own = modeState.mode();
        FleetState f = fleet;
        return nowNanos < f.untilNanos() && f.others().mode().above(own) ? f.others().mode() : own;
    }

    /**
     * What this replica publishes to its fleet about the deployment: its own mode (never one taken
     * from the fleet, so the fleet relaxes when the replica that saw the refusals does), whether it
     * sheds deep, its probe after an overload, held by {@code self}, with the pause left before
     * it starts, and how long ago a class that load shedding still serves last asked here (so that
     * every replica refuses batch while a protected caller asks any of them).
     */
    public FleetAdaptive published(String self) {
        Objects.requireNonNull(self, "self");
        long now = clock.nanos();
        ModeState m = modeState;
        Probe p = probe.get();
        Optional<FleetAdaptive.Probe> own = p == null ? Optional.empty()
                : Optional.of(new FleetAdaptive.Probe(Math.max(0, p.fromNanos() - now), self, p.cause()));
        long ago = now - protectedAskedNanos;
        long window = config.window().length().toNanos();
        return new FleetAdaptive(m.mode(), shedDeep, own, ago >= 0 && ago <= window ? ago : FleetAdaptive.NEVER);
    }

    /** The ramp's stage now (0 is the first). */
    public synchronized int rampStage() {
        return ramp.stage();
    }

    /**
     * Joins a fleet whose replicas run this deployment's ramp at {@code stage}: this replica's ramp
     * takes that stage at once instead of starting cold (never lowers it), and the factor is pushed.
     */
    public void joinRamp(int stage) {
        List<AdaptiveEvent> events = new ArrayList<>(1);
        synchronized (this) {
            long now = clock.nanos();
            ramp.join(stage, now).ifPresent(step -> events.add(new RampChanged(deployment, step)));
            push(now, limits());
        }
        deliver(events);
    }

    /**
     * The most severe mode the fleet's other replicas are in for this deployment, standing until
     * {@code untilNanos} on this controller's clock unless given again (a replica that stops
     * publishing stops counting). Only ever makes admission stricter than this replica's own mode.
     */
    public void fleetMode(Mode mode, long untilNanos) {
        fleet(new FleetAdaptive(mode, false, Optional.empty()), "", untilNanos);
    }

    /**
     * What the fleet's other replicas published for this deployment, merged
     * ({@link FleetAdaptive#merge}), as read now by the replica {@code self}; it stands until
     * {@code untilNanos} on this controller's clock unless given again. Admission applies the more
     * severe mode, sheds the shed-last classes too when the replica it takes load shedding from
     * does, and while another replica holds the fleet's probe (any, when this one has none of its
     * own; one of an earlier id, when it has) refuses as probing instead of sending a probe of its
     * own. Only ever makes admission stricter than this replica's own state.
     */
    public void fleet(FleetAdaptive others, String self, long untilNanos) {
        Objects.requireNonNull(others, "others");
        Objects.requireNonNull(self, "self");
        fleet = new FleetState(others, self, clock.nanos(), untilNanos);
    }

    /** Successful answers this replica's own requests have had so far (published to the fleet). */
    public synchronized long successes() {
        return successes;
    }

    /**
     * {@code n} successful answers other replicas of the fleet had from this deployment since they
     * last said: each takes the multiplier one recovery step up, as this replica's own do. The
     * fleet runs at its lowest fresh proposal, so without this the replica that was cut recovers
     * by its own share of the traffic alone and holds every replica back; with it the recovery is
     * the fleet's, as one governor's would be. Cuts stay each replica's own (the lowest wins).
     */
    public void fleetSuccesses(long n) {
        if (n <= 0) {
            return;
        }
        synchronized (this) {
            recover(n);
            push(clock.nanos(), limits());
        }
    }

    public void addListener(AdaptiveListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Learns from one answer of the deployment.
     *
     * @param signal the normalised answer
     * @param latencyNanos from sending the request to the answer (to its headers for streams);
     *     it also tells which cut the request was sent under
     */
    public void onSignal(ProviderSignal signal, long latencyNanos) {
        onSignal(signal, latencyNanos, Optional.empty());
    }

    /**
     * Learns from one answer of the deployment to a request of class {@code trafficClass}, when
     * known. While shedding, only a refusal of a request of a class still served (or of unknown
     * class) says that shedding the others did not relieve the provider: a refusal of work that
     * was queued before shedding began is no evidence against the classes still served.
     *
     * @param signal the normalised answer
     * @param latencyNanos from sending the request to the answer (to its headers for streams)
     * @param trafficClass the class of the request answered, when the caller knows it
     */
    public void onSignal(ProviderSignal signal, long latencyNanos, Optional<TrafficClass> trafficClass) {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(trafficClass, "trafficClass");
        List<AdaptiveEvent> events = new ArrayList<>(2);
        synchronized (this) {
            long now = clock.nanos();
            long latency = Math.max(0, latencyNanos);
            Limits limits = limits();
            Outcome outcome = Outcome.of(signal);
            double relative = relativeFactor(now, limits);
            double rampFraction = ramp.fraction(now);
            boolean rampBinds = !ramp.complete(now) && rampFraction < minMultiplier();
            if (rampBinds) {
                rampBoundNanos = now;
            }
            if (outcome == Outcome.SUCCESS) {
                // The provider answers again: probing is over.
                probe.set(null);
            }
            switch (outcome) {
                case SUCCESS -> {
                    gauge.success(now, relative, latency);
                    ramp.record(false, latency, now);
                    successes++;
                    recover(1);
                }
                case LIMITED -> {
                    gauge.limited(now, relative);
                    // The tighter of the two ceilings held the rate, so it owns the refusal: counted
                    // against the ramp's stage only while the ramp binds, and cutting the multiplier
                    // (or teaching a ceiling) only while the multiplier does. Counting each refusal
                    // against both sent a cold start back down the ramp while its multiplier was
                    // cut to the floor for the same 429.
                    ramp.record(rampBinds, rampBinds ? latency : 0, now);
                    List<Dimension> named = named(signal, limits);
                    if (now - latency > lastCutNanos) {
                        lastCutNanos = now;
                        freshRefusals.add(now);
                        if (trafficClass.map(this::servedWhileShedding).orElse(true)) {
                            servedRefusals.add(now);
                        }
                        if (rampBinds && ramp.stage() == ramp.config().lastStage()) {
                            handOver(named, rampFraction, now, events);
                        } else if (!rampBinds) {
                            // An overload is the provider's shared capacity, not our limit: nothing to learn a ceiling from.
                            if (headerless(now) && signal.status() == SignalStatus.RATE_LIMITED) {
                                learnCeiling(now);
                            }
                            cut(named);
                        }
                    }
                    long pauseNanos = limitedPauseNanos(signal, limits);
                    String cause = cause(signal, limits);
                    pause(named, pauseNanos, signal.reason(), cause, now, limits, events);
                    if (signal.status() == SignalStatus.OVERLOADED && pauseNanos > 0) {
                        probe.set(new Probe(now + pauseNanos, now + pauseNanos, cause));
                    }
                }
                case EXHAUSTED -> pause(rates(limits), CooldownPolicy.exhaustedPauseNanos(signal.retryAfterMillis(),
                        uniform(), config.cooldown()), signal.reason(), cause(signal, limits), now, limits, events);
                case SLOW -> gauge.slow(now, latency);
                case IGNORED -> { }
            }
            if (outcome != Outcome.IGNORED) {
                throttle.record(now, outcome != Outcome.LIMITED && outcome != Outcome.EXHAUSTED);
            }
            correct(signal.observations(), now - latency, limits, now, events);
            evaluate(now, false, events);
            if (outcome == Outcome.LIMITED) {
                deepenShedding(now);
            }
            push(now, limits);
        }
        deliver(events);
    }

    /**
     * A request of class {@code c} waited {@code waitedNanos} in its queue out of a budget of
     * {@code budgetNanos} (its class budget cut by its deadline) and was admitted. Safe to call
     * from a {@link dev.sluice.governor.GovernorListener}.
     */
    public void onQueueWait(TrafficClass c, long waitedNanos, long budgetNanos) {
        double pressure = budgetNanos <= 0 ? 1.0 : Math.min(1.0, Math.max(0, waitedNanos) / (double) budgetNanos);
        recordPressure(c, pressure);
    }

    /**
     * A request of class {@code c} was refused because it could not be served within its wait
     * budget or deadline (it timed out in the queue, or would have): full pressure.
     */
    public void onQueueRefused(TrafficClass c) {
        recordPressure(c, 1.0);
    }

    private void recordPressure(TrafficClass c, double pressure) {
        if (!config.modes().queuePressureClasses().contains(c)) {
            return;
        }
        gauge.queued(clock.nanos(), pressure);
    }

    /** Judges modes and the ramp and applies time-driven changes; call about once a second. */
    public void tick() {
        List<AdaptiveEvent> events = new ArrayList<>(1);
        synchronized (this) {
            long now = clock.nanos();
            Limits limits = limits();
            evaluate(now, true, events);
            push(now, limits);
        }
        deliver(events);
    }

    @Override
    public Optional<Rejection> screen(TrafficClass trafficClass, long nowNanos) {
        PauseNotice n = notice;
        long pausedUntilNow = guardPausedUntil;
        if (nowNanos < pausedUntilNow) {
            return Optional.of(coolingDown(pausedUntilNow - nowNanos, n.cause(), ""));
        }
        ModeState s = modeState;
        ModeConfig m = config.modes();
        FleetState f = fleet;
        boolean fleetStands = nowNanos < f.untilNanos();
        Mode mode = modeInForce(nowNanos);
        // A mode taken from the fleet has no local dwell to wait out: retry after the minimum.
        long retry = mode != s.mode() ? m.minRetryAfter().toNanos()
                : Math.max(m.minRetryAfter().toNanos(), s.sinceNanos() + m.minDwell().toNanos() - nowNanos);
        boolean protectedClass = m.servedWhileShedding().contains(trafficClass)
                || m.shedding().shedLast().contains(trafficClass);
        if (protectedClass) {
            protectedAskedNanos = nowNanos;
        }
        // Shedding refuses some classes so that the ones it still serves get the capacity. When none
        // of those has asked within the window, refusing the rest protects nobody: it only takes the
        // arrivals out of the fair queue (which still paces them at the rate in force), so a deployment
        // serving batch tenants alone split its goodput by arrivals instead of by weight.
        // That caller may have asked another replica: the fleet's latest one counts too, or a batch
        // request would be queued here while the replica the interactive caller reached refuses it.
        long window = config.window().length().toNanos();
        long fleetAgo = fleetStands ? f.others().protectedAskedAgoNanos() : FleetAdaptive.NEVER;
        boolean protecting = nowNanos - protectedAskedNanos <= window
                || (fleetAgo != FleetAdaptive.NEVER && nowNanos - f.readAtNanos() <= window - fleetAgo);
        if (mode == Mode.LOAD_SHEDDING && protecting && !m.servedWhileShedding().contains(trafficClass)) {
            // The depth is the fleet's too: every replica sheds what the deepest shedding replica sheds.
            boolean deep = (shedDeep && s.mode() == Mode.LOAD_SHEDDING) || (fleetStands && f.others().shedDeep());
            if (deep || !m.shedding().shedLast().contains(trafficClass)) {
                String served = deep ? "only critical requests are served"
                        : "only critical and " + names(m.shedding().shedLast()) + " requests are served";
                return Optional.of(refusal(GatewayDecision.SHED_UNDER_PRESSURE, "load_shedding_non_critical", retry,
                        "Deployment " + deployment + " is shedding load after repeated provider refusals: " + served
                                + " for now; retry in " + human(retry) + " or later."));
            }
        }
        if (mode == Mode.BROWNOUT && m.pausedInBrownout().contains(trafficClass)) {
            return Optional.of(refusal(GatewayDecision.SHED_UNDER_PRESSURE,
                    trafficClass.wireName() + "_paused_in_brownout", retry, "Deployment " + deployment
                            + " is in brownout: " + trafficClass.wireName() + " work is paused; retry in "
                            + human(retry) + " or later."));
        }
        ClientThrottleConfig t = config.clientThrottle();
        if (t.enabled() && !t.exempt().contains(trafficClass) && throttle.refuse(nowNanos, uniform())) {
            return Optional.of(refusal(GatewayDecision.SHED_UNDER_PRESSURE, "client_side_throttled",
                    m.minRetryAfter().toNanos(), "Deployment " + deployment + " has refused many recent requests; "
                            + "this one was throttled locally to let it recover."));
        }
        if (nowNanos < n.untilNanos()) {
            // A pause longer than the request may wait is answered as what it is, not as a short bucket.
            long left = n.untilNanos() - nowNanos;
            long budget = budgetNanos(trafficClass);
            if (left > budget) {
                return Optional.of(coolingDown(left, n.cause(), ", longer than the " + trafficClass.wireName()
                        + " request may wait (" + human(budget) + ")"));
            }
        }
        Probe p = probe.get();
        Optional<FleetAdaptive.Probe> fp = fleetStands ? f.others().probe() : Optional.empty();
        if (fp.isPresent() && nowNanos >= f.readAtNanos() + fp.get().startsInNanos()
                && (p == null || fp.get().holder().compareTo(f.self()) < 0)) {
            // Another replica holds the fleet's probe: one request for the whole fleet, not one per replica.
            long wait = config.cooldown().floor().toNanos();
            return Optional.of(refusal(GatewayDecision.REJECTED_LOCALLY, "deployment_probing", wait,
                    "Deployment " + deployment + " is being probed after " + fp.get().cause() + ": one request goes "
                            + "first to see whether the provider has recovered; retry in " + human(wait) + "."));
        }
        if (p != null && nowNanos >= p.fromNanos()) {
            if (nowNanos >= p.nextNanos()
                    && probe.compareAndSet(p, new Probe(p.fromNanos(), nowNanos + config.cooldown().floor().toNanos(),
                            p.cause()))) {
                return Optional.empty();
            }
            Probe q = probe.get();
            long wait = Math.max(1_000_000L, (q == null ? nowNanos : q.nextNanos()) - nowNanos);
            return Optional.of(refusal(GatewayDecision.REJECTED_LOCALLY, "deployment_probing", wait,
                    "Deployment " + deployment + " is being probed after " + p.cause() + ": one request goes "
                            + "first to see whether the provider has recovered; retry in " + human(wait) + "."));
        }
        return Optional.empty();
    }

    @Override
    public boolean brownout(long nowNanos) {
        Mode m = modeInForce(nowNanos);
        return m == Mode.BROWNOUT || m == Mode.LOAD_SHEDDING;
    }

    /** The deployment's adaptive state now. */
    public synchronized AdaptiveSnapshot snapshot() {
        long now = clock.nanos();
        Limits limits = limits();
        Map<Dimension, Double> mult = new EnumMap<>(Dimension.class);
        Map<Dimension, Double> observed = new EnumMap<>(Dimension.class);
        Map<Dimension, Double> factors = new EnumMap<>(Dimension.class);
        Map<Dimension, Long> paused = new EnumMap<>(Dimension.class);
        double rampFraction = ramp.fraction(now);
        for (Dimension d : rates(limits)) {
            mult.put(d, multiplier[d.ordinal()]);
            observed.put(d, drift[d.ordinal()].factor());
            factors.put(d, factor(d, rampFraction));
            paused.put(d, pauseLeft(d.ordinal(), now));
        }
        SignalWindow.Stats s = gauge.stats(now);
        ModeState m = modeState;
        double throttleP = config.clientThrottle().enabled() ? throttle.probability(now) : 0;
        return new AdaptiveSnapshot(deployment, m.mode(), m.sinceNanos(), mult, ceiling, observed, ramp.stage(),
                rampFraction, factors, paused, s.answers(), readings.limitedRatio(), readings.queuePressure(),
                readings.latencyRatio(), headerless(now), throttleP, climbSlowdowns);
    }

    // ---- state changes, all with the state lock held ----

    private void cut(List<Dimension> named) {
        MultiplierConfig c = config.multiplier();
        climbSlowdowns = MultiplierPolicy.slowdownsAfterCut(climbSlowdowns, climbedByTime);
        climbedByTime = false;
        Dimension[] which = c.perDimension() ? named.toArray(Dimension[]::new) : RATES;
        if (!c.perDimension()) {
            double shared = MultiplierPolicy.decrease(minMultiplier(), c);
            for (Dimension d : which) {
                multiplier[d.ordinal()] = shared;
            }
            return;
        }
        for (Dimension d : which) {
            multiplier[d.ordinal()] = MultiplierPolicy.decrease(multiplier[d.ordinal()], c);
        }
    }

    /**
     * A refusal met the ramp's last stage while it climbed: the ramp ends, and the multiplier takes
     * over one cut below the fraction the ramp had reached (the rate actually in force), so the
     * deployment goes on from there by the multiplier's additive climb instead of stepping back a
     * stage and climbing the ramp again.
     */
    private void handOver(List<Dimension> named, double rampFraction, long now, List<AdaptiveEvent> events) {
        MultiplierConfig c = config.multiplier();
        double from = MultiplierPolicy.decrease(rampFraction, c);
        Dimension[] which = c.perDimension() ? named.toArray(Dimension[]::new) : RATES;
        for (Dimension d : which) {
            multiplier[d.ordinal()] = Math.min(multiplier[d.ordinal()], from);
        }
        ramp.finish(String.format(Locale.ROOT, "429 at %.2f of the limit on the last stage: the multiplier takes over",
                rampFraction), now).ifPresent(step -> events.add(new RampChanged(deployment, step)));
    }

    /**
     * The multiplier's climb by clean time: once {@code clean_recovery_after} has passed since the
     * last fresh refusal, it rises by {@code increase_per_clean_second} for every second that stays
     * clean, up to the ceiling, beside the climb per success; halved after each cut that ended such a
     * climb, back to full speed after a long clean spell ({@link MultiplierPolicy#slowdownsAfterCut},
     * {@link MultiplierPolicy#slowdownsAfterClean}). Why: recovery by successes alone stalls exactly
     * where it is needed most. A multiplier cut while the provider's limit was low (a warm-up, a cut)
     * leaves the rate in force so low, and the buckets so deep in the debt of streams admitted
     * before the cut, that hardly any answer comes back to raise it: in long-streaming member 3
     * nothing was sent for 345 s at a multiplier of 0.59 while the provider had long since warmed
     * up. Not while latency says the provider is straining.
     */
    private void recoverByTime(long now) {
        MultiplierConfig c = config.multiplier();
        if (lastCutNanos != Long.MIN_VALUE) {
            climbSlowdowns = MultiplierPolicy.slowdownsAfterClean(climbSlowdowns, now - lastCutNanos, c);
        }
        long cleanFrom = lastCutNanos == Long.MIN_VALUE ? Long.MIN_VALUE / 2
                : lastCutNanos + c.cleanRecoveryAfter().toNanos();
        long from = Math.max(timeRecoveredNanos, cleanFrom);
        if (now <= from) {
            return;
        }
        timeRecoveredNanos = now;
        if (readings.latencyRatio() >= config.modes().latencyRatio().enter().caution()) {
            return;
        }
        for (Dimension d : RATES) {
            double before = multiplier[d.ordinal()];
            multiplier[d.ordinal()] = MultiplierPolicy.recoverByTime(before, ceiling, now - from, climbSlowdowns, c);
            if (multiplier[d.ordinal()] > before) {
                climbedByTime = true;
            }
        }
    }

    /** {@code n} successes' recovery steps of the multiplier, unless latency says the provider is straining. */
    private void recover(long n) {
        if (readings.latencyRatio() >= config.modes().latencyRatio().enter().caution()) {
            return;
        }
        for (long i = 0; i < n; i++) {
            for (Dimension d : RATES) {
                multiplier[d.ordinal()] = MultiplierPolicy.increase(multiplier[d.ordinal()], ceiling,
                        config.multiplier());
            }
        }
    }

    /**
     * Lowers the headerless ceiling from the window's evidence, never below the multiplier's floor
     * (the 5% step per refusal took it there and beyond), and never from a window the ramp held:
     * its answers went out at the ramp's pace, so their successful share measures the stage, not
     * the provider's limit (a cold start's first 429 at the ramp's second stage set a ceiling of
     * 0.2 that took the rest of the run to climb back).
     */
    private void learnCeiling(long now) {
        SignalWindow.Stats s = gauge.stats(now);
        if (s.answers() < config.window().minSamples()) {
            return;
        }
        long window = config.window().length().toNanos();
        if (now - rampBoundNanos < window) {
            return;
        }
        double estimate = MultiplierPolicy.ceilingEstimate(s.meanFactor(), s.successes(), s.limited(),
                config.multiplier().floor());
        ceiling = Math.max(config.multiplier().floor(),
                Math.min(ceiling * config.headerless().ceilingDecrease(), estimate));
        ceilingCheckedNanos = now;
        for (Dimension d : RATES) {
            multiplier[d.ordinal()] = Math.min(multiplier[d.ordinal()], ceiling);
        }
    }

    private void pause(List<Dimension> dims, long pauseNanos, String reason, String cause, long now, Limits limits,
            List<AdaptiveEvent> events) {
        if (pauseNanos <= 0) {
            return;
        }
        long until = now + pauseNanos;
        if (until > notice.untilNanos()) {
            notice = new PauseNotice(until, cause);
        }
        long before = Long.MIN_VALUE;
        boolean extended = false;
        if (dims.isEmpty()) {
            // No rate to pause in the store: the guard refuses for the duration instead.
            before = guardPausedUntil;
            if (until > before) {
                guardPausedUntil = until;
                extended = true;
            }
        }
        for (Dimension d : dims) {
            before = Math.max(before, pausedUntil[d.ordinal()]);
            if (until > pausedUntil[d.ordinal()]) {
                pausedUntil[d.ordinal()] = until;
                extended = true;
            }
        }
        // A burst of refusals extends one pause a little at a time; report it when it starts or grows by half.
        if (extended && (before <= now || until - before >= pauseNanos / 2)) {
            events.add(new CooldownStarted(deployment, dims, pauseNanos, reason, now));
        }
        if (pauseNanos >= config.cooldown().rampAfter().toNanos()) {
            ramp.restartAtOrBelow(minMultiplier(), "paused " + human(pauseNanos) + " (" + reason + ")", now)
                    .ifPresent(step -> events.add(new RampChanged(deployment, step)));
        }
    }

    /**
     * Applies the figures of one answer to a request sent at {@code sentAt}. Answers arrive out of
     * order (a 429 in milliseconds, a success after seconds), so a figure from a request sent
     * before one already applied is older news and is skipped.
     */
    private void correct(List<LimitObservation> observations, long sentAt, Limits limits, long now,
            List<AdaptiveEvent> events) {
        BucketState bucket = null;
        CorrectionConfig c = config.correction();
        for (LimitObservation o : observations) {
            Optional<Dimension> dim = Outcome.dimensionOf(o.kind());
            if (dim.isEmpty() || dim.get().kind() != Dimension.Kind.RATE || !limits.has(dim.get())) {
                continue;
            }
            Dimension d = dim.get();
            if (sentAt < figureSentAt[d.ordinal()]) {
                continue;
            }
            figureSentAt[d.ordinal()] = sentAt;
            long configured = limits.get(d).map(Limit::amount).orElseThrow();
            if (o.limit().isPresent()) {
                lastLimitFigureNanos = now;
                if (c.adoptObservedLimits()) {
                    double perMinute = o.limit().getAsLong() * 60e9 / c.reportedWindow(d).toNanos();
                    adopt(d, configured, perMinute / configured, now, events);
                }
            }
            if (o.remaining().isPresent() && c.syncDown()) {
                if (bucket == null) {
                    bucket = governor.bucket(scope).orElse(null);
                    if (bucket == null) {
                        continue;
                    }
                }
                Optional<BucketState.DimensionState> ds = bucket.of(d);
                long remaining = o.remaining().getAsLong();
                if (ds.isPresent() && remaining < ds.get().available()) {
                    governor.syncDown(deployment, d, remaining);
                    // Saturated buckets sync a little on every answer; only a real gap is worth an event.
                    if (remaining < ds.get().available() - Math.max(1, 0.01 * ds.get().capacity())) {
                        events.add(new CapacitySynced(deployment, d, (long) Math.floor(ds.get().available()),
                                remaining, now));
                    }
                    bucket = null;
                }
            }
        }
    }

    private void adopt(Dimension d, long configured, double ratio, long now, List<AdaptiveEvent> events) {
        DriftPolicy.State before = drift[d.ordinal()];
        DriftPolicy.State after = DriftPolicy.next(before, ratio, config.correction());
        drift[d.ordinal()] = after;
        if (after.factor() == before.factor()) {
            return;
        }
        if (after.factor() < before.factor()) {
            // The provider now states the limit: what was learned against the old base is re-expressed
            // against the new one, and the headerless ceiling is superseded.
            ceiling = 1.0;
            Dimension[] which = config.multiplier().perDimension() ? new Dimension[] {d} : RATES;
            for (Dimension w : which) {
                multiplier[w.ordinal()] = MultiplierPolicy.rebase(multiplier[w.ordinal()], before.factor(),
                        after.factor());
            }
        }
        events.add(new LimitDrift(deployment, d, configured, Math.round(after.factor() * configured), after.factor(),
                now));
    }

    private void evaluate(long now, boolean force, List<AdaptiveEvent> events) {
        if (!force && now - lastEvaluationNanos < EVALUATION_SPACING_NANOS) {
            return;
        }
        lastEvaluationNanos = now;
        recoverByTime(now);
        SignalWindow.Stats s = gauge.stats(now);
        ModeState m = modeState;
        // Clean answers while queues fill (brownout from queue pressure) say the ceiling is too low,
        // not that the provider is in distress: it climbs in every mode short of shedding.
        if (ceiling < 1.0 && s.limited() <= s.answers() * config.headerless().cleanRatio()
                && !m.mode().above(Mode.BROWNOUT)) {
            ceiling = MultiplierPolicy.recoverCeiling(ceiling, now - ceilingCheckedNanos,
                    config.headerless().ceilingRecoveryPerMinute());
        }
        ceilingCheckedNanos = now;
        SheddingConfig shedding = config.modes().shedding();
        readings = gauge.read(now, s, m.mode(), minMultiplier() / ceiling)
                .withSustained(freshRefusals.allAfter(now - shedding.within().toNanos()));
        Optional<ModePolicy.Change> change = ModePolicy.next(m.mode(), m.sinceNanos(), readings, now, config.modes());
        if (change.isPresent()) {
            modeState = new ModeState(change.get().to(), now);
            shedDeep = false;
            events.add(new ModeTransition(deployment, m.mode(), change.get().to(), change.get().reason(), now));
        }
        deepenShedding(now);
        // The ramp judges its own stage by the 429 ratio and latency it saw. A mode short of shedding
        // does not hold it back: demand above the ramp's stage fills the queues (brownout from queue
        // pressure) exactly when the stage is too low, and holding the ramp then keeps it low for good.
        boolean mayAdvance = !modeState.mode().above(Mode.BROWNOUT);
        ramp.evaluate(now, mayAdvance).ifPresent(step -> events.add(new RampChanged(deployment, step)));
    }

    /** Shedding the others did not relieve the provider: the shed-last classes go too. */
    private void deepenShedding(long now) {
        ModeState m = modeState;
        long within = config.modes().shedding().within().toNanos();
        if (m.mode() == Mode.LOAD_SHEDDING && !shedDeep && servedRefusals.allAfter(Math.max(m.sinceNanos(), now - within))) {
            shedDeep = true;
        }
    }

    private boolean servedWhileShedding(TrafficClass c) {
        ModeConfig m = config.modes();
        return m.servedWhileShedding().contains(c) || m.shedding().shedLast().contains(c);
    }

    /**
     * How long a 429 or overload pauses: an overload for the provider's delay cut to the fault cap;
     * a 429 naming one rate for at most its short window's refill time; any other for the delay or floor.
     */
    private long limitedPauseNanos(ProviderSignal signal, Limits limits) {
        CooldownConfig c = config.cooldown();
        if (signal.status() == SignalStatus.OVERLOADED) {
            return CooldownPolicy.faultPauseNanos(signal.retryAfterMillis(), uniform(), c);
        }
        Optional<Dimension> rate = namedRate(signal, limits);
        if (rate.isPresent()) {
            long cap = CooldownPolicy.namedRateCapNanos(limits.get(rate.get()).orElseThrow(), scope.level(),
                    c.rateWindow().toNanos());
            return CooldownPolicy.namedRatePauseNanos(signal.retryAfterMillis(), cap, uniform(), c);
        }
        return CooldownPolicy.pauseNanos(signal.retryAfterMillis(), uniform(), c);
    }

    /** Sends every changed rate factor and pause to the governor. */
    private void push(long now, Limits limits) {
        double rampFraction = ramp.fraction(now);
        for (Dimension d : rates(limits)) {
            int i = d.ordinal();
            double f = factor(d, rampFraction);
            if (!(Math.abs(f - pushedFactor[i]) <= 1e-9) || pausedUntil[i] != pushedPauseUntil[i]) {
                governor.control(deployment, d, f, pauseLeft(i, now));
                pushedFactor[i] = f;
                pushedPauseUntil[i] = pausedUntil[i];
            }
        }
    }

    /** What is left of the pause on dimension {@code i}; 0 when none (never from overflowing arithmetic). */
    private long pauseLeft(int i, long now) {
        return pausedUntil[i] > now ? pausedUntil[i] - now : 0;
    }

    private double factor(Dimension d, double rampFraction) {
        double f = drift[d.ordinal()].factor() * Math.min(multiplier[d.ordinal()], rampFraction);
        return Math.max(DriftPolicy.MIN_FACTOR, Math.min(1.0, f));
    }

    // ---- helpers ----

    private double relativeFactor(long now, Limits limits) {
        double rampFraction = ramp.fraction(now);
        double f = 1.0;
        for (Dimension d : rates(limits)) {
            f = Math.min(f, Math.min(multiplier[d.ordinal()], rampFraction));
        }
        return f;
    }

    private double minMultiplier() {
        double m = 1.0;
        for (Dimension d : RATES) {
            m = Math.min(m, multiplier[d.ordinal()]);
        }
        return m;
    }

    private boolean headerless(long now) {
        return lastLimitFigureNanos == Long.MIN_VALUE
                || now - lastLimitFigureNanos > config.headerless().headerMemory().toNanos();
    }

    /** The deployment's limited rates the provider named, or all of them when it named none of them. */
    private static List<Dimension> named(ProviderSignal signal, Limits limits) {
        return namedRate(signal, limits).map(List::of).orElseGet(() -> rates(limits));
    }

    /** The one limited rate of the deployment the provider named, if it named one. */
    private static Optional<Dimension> namedRate(ProviderSignal signal, Limits limits) {
        return signal.limitHit().flatMap(Outcome::dimensionOf)
                .filter(d -> d.kind() == Dimension.Kind.RATE && limits.has(d));
    }

    /** What caused a pause, in words: "the provider answered 503 (overloaded)", "... on input_tpm". */
    private static String cause(ProviderSignal signal, Limits limits) {
        String on = namedRate(signal, limits).map(d -> " on " + d.limiterName()).orElse("");
        return "the provider answered " + signal.httpStatus() + " (" + signal.reason() + ")" + on;
    }

    private long budgetNanos(TrafficClass c) {
        ClassPolicy p = governor.config().classes().get(c);
        return p == null ? 0 : p.maxQueueWait().toNanos();
    }

    private Rejection coolingDown(long leftNanos, String cause, String tail) {
        String after = cause.isEmpty() ? "the provider refused requests" : cause;
        return refusal(GatewayDecision.REJECTED_LOCALLY, "deployment_cooling_down", leftNanos, "Deployment "
                + deployment + " is cooling down after " + after + "; it resumes in " + human(leftNanos) + tail + ".");
    }

    private static String names(java.util.Set<TrafficClass> classes) {
        return String.join(" and ", classes.stream().map(TrafficClass::wireName).toList());
    }

    private static List<Dimension> rates(Limits limits) {
        List<Dimension> out = new ArrayList<>(RATES.length);
        for (Dimension d : RATES) {
            if (limits.has(d)) {
                out.add(d);
            }
        }
        return out;
    }

    private Limits limits() {
        return governor.config().settings(scope).limits();
    }

    private double uniform() {
        synchronized (random) {
            return random.nextDouble();
        }
    }

    private Rejection refusal(GatewayDecision decision, String code, long retryNanos, String message) {
        return new Rejection(decision, code, Optional.empty(), Optional.of(scope), (retryNanos + 999_999) / 1_000_000,
                true, message);
    }

    private void deliver(List<AdaptiveEvent> events) {
        for (AdaptiveEvent e : events) {
            for (AdaptiveListener l : listeners) {
                l.onEvent(e);
            }
        }
    }

    private static String human(long nanos) {
        return nanos < 1_000_000_000L ? Math.max(1, nanos / 1_000_000) + " ms"
                : String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
