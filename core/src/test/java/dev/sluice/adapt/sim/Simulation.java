package dev.sluice.adapt.sim;

import dev.sluice.adapt.AdaptiveConfig;
import dev.sluice.adapt.AdaptiveController;
import dev.sluice.adapt.AdaptiveControllers;
import dev.sluice.adapt.CooldownStarted;
import dev.sluice.adapt.Mode;
import dev.sluice.adapt.ModeTransition;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.Reservation;
import dev.sluice.governor.TrafficClass;
import dev.sluice.governor.Usage;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;

/**
 * Drives the real {@link QuotaGovernor}, {@link InMemoryQuotaStore} and {@link AdaptiveController}
 * against a {@link SimProvider} in virtual time: Poisson arrivals, admission, queueing, dispatch,
 * answers after their latency, settlement, the governor's timers and a controller tick every
 * second. After every event it checks the deployment bucket's invariants. Everything derives from
 * one seed.
 */
final class Simulation {

    static final String DEPLOYMENT = "sim-deployment";
    static final Scope SCOPE = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, DEPLOYMENT);
    static final long INPUT_TOKENS = 600;
    static final long OUTPUT_TOKENS = 400;
    private static final long S = 1_000_000_000L;
    private static final RequestPath PATH = new RequestPath("org", "tenant", "team", "key", "profile", DEPLOYMENT);

    final long seed;
    final FakeClock clock = new FakeClock();
    final VirtualTime time = new VirtualTime(clock);
    final QuotaGovernor governor;
    final AdaptiveControllers controllers;
    final AdaptiveController controller;
    final SimProvider provider;
    private final SplittableRandom random;
    private DoubleUnaryOperator arrivalsPerSecond = t -> 0;
    private final Map<TrafficClass, Double> mix = new EnumMap<>(TrafficClass.class);
    private long requests;
    private long nextWakeup = Long.MAX_VALUE;

    // Per second of virtual time, by when the provider saw the request.
    private final long[] dispatched;
    private final long[] succeeded;
    private final long[] refused;
    private final long[] overloaded;
    private final long[] shed;
    private final Mode[] modeAt;
    final List<ModeTransition> transitions = new ArrayList<>();
    final List<CooldownStarted> cooldowns = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();

    /**
     * @param configuredRpm the deployment's configured request limit
     * @param configuredTpm its configured token limit
     * @param provider the provider behind it (its real limits may differ)
     * @param config the adaptive configuration
     * @param seconds how long the longest run may last
     */
    Simulation(long seed, long configuredRpm, long configuredTpm, SimProvider provider, AdaptiveConfig config,
            int seconds) {
        this(seed, Limit.of(Dimension.REQUESTS, configuredRpm), configuredTpm, provider, config, seconds);
    }

    /** With an explicit request limit, e.g. one whose burst is wider than the default second. */
    Simulation(long seed, Limit requestLimit, long configuredTpm, SimProvider provider, AdaptiveConfig config,
            int seconds) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.provider = provider;
        // A minute's tokens at once: the simulated provider enforces its token limit per minute.
        Limits limits = Limits.of(requestLimit, Limit.of(Dimension.TOTAL_TOKENS, configuredTpm, configuredTpm));
        this.governor = new QuotaGovernor(GovernorConfig.builder().scope(SCOPE, limits).build(),
                new InMemoryQuotaStore(clock, ZoneOffset.UTC), clock);
        this.controllers = new AdaptiveControllers(governor, d -> config, seed);
        governor.addListener(controllers);
        controllers.addListener(e -> {
            if (e instanceof ModeTransition t) {
                transitions.add(t);
            } else if (e instanceof CooldownStarted c) {
                cooldowns.add(c);
            }
        });
        this.controller = controllers.controller(DEPLOYMENT);
        governor.onWakeup(this::wakeAt);
        this.dispatched = new long[seconds + 1];
        this.succeeded = new long[seconds + 1];
        this.refused = new long[seconds + 1];
        this.overloaded = new long[seconds + 1];
        this.shed = new long[seconds + 1];
        this.modeAt = new Mode[seconds + 1];
        mix.put(TrafficClass.BATCH, 1.0);
        for (int s = 0; s <= seconds; s++) {
            int second = s;
            time.at(s * S, () -> {
                controllers.tick();
                modeAt[second] = controller.mode();
            });
        }
    }

    /** One pending governor timer at a time: the earliest one asked for; superseded ones are skipped. */
    private void wakeAt(long asked) {
        long at = Math.max(asked, clock.nanos());
        if (at >= nextWakeup) {
            return;
        }
        nextWakeup = at;
        time.at(at, () -> {
            if (clock.nanos() == nextWakeup) {
                nextWakeup = Long.MAX_VALUE;
                governor.onTimer();
            }
        });
    }

    /** Arrival rate in requests per second, by time in seconds. */
    Simulation arrivals(DoubleUnaryOperator perSecond) {
        this.arrivalsPerSecond = perSecond;
        return this;
    }

    /** The share of each traffic class among arrivals. */
    Simulation mix(Map<TrafficClass, Double> shares) {
        mix.clear();
        mix.putAll(shares);
        return this;
    }

    /** Schedules {@code action} at {@code second}. */
    Simulation at(double second, Runnable action) {
        time.at((long) (second * S), action);
        return this;
    }

    Simulation run(int seconds) {
        time.at(0, this::arrive);
        time.runUntil(seconds * S, this::checkInvariants);
        return this;
    }

    private void arrive() {
        long now = clock.nanos();
        double rate = arrivalsPerSecond.applyAsDouble(now / 1e9);
        if (rate > 0) {
            AdmissionRequest r = new AdmissionRequest("r" + requests++, PATH,
                    new Demand(INPUT_TOKENS, OUTPUT_TOKENS, false), pickClass(), AdmissionRequest.NO_DEADLINE);
            decided(governor.admit(r));
        }
        double gap = rate > 0 ? -Math.log(1 - random.nextDouble()) / rate : 0.1;
        time.at(now + (long) (gap * S), this::arrive);
    }

    private void decided(Decision d) {
        switch (d) {
            case Decision.Admitted a -> dispatch(a.reservation());
            case Decision.Rejected r -> {
                if (r.rejection().decision() == GatewayDecision.SHED_UNDER_PRESSURE) {
                    shed[second()]++;
                }
            }
            // Completes inside the governor; act on it as a fresh event at the same instant.
            case Decision.Queued q -> q.outcome().thenAccept(f -> time.at(clock.nanos(), () -> decided(f)));
        }
    }

    private void dispatch(Reservation reservation) {
        int second = second();
        SimProvider.Answer answer = provider.handle(clock.nanos(), INPUT_TOKENS, OUTPUT_TOKENS);
        dispatched[second]++;
        switch (answer.signal().status()) {
            case SUCCESS -> succeeded[second]++;
            case RATE_LIMITED -> refused[second]++;
            case OVERLOADED -> overloaded[second]++;
            default -> { }
        }
        time.at(clock.nanos() + answer.latencyNanos(), () -> {
            if (answer.ok()) {
                reservation.settle(new Usage(INPUT_TOKENS, OUTPUT_TOKENS));
            } else {
                reservation.release();
            }
            controller.onSignal(answer.signal(), answer.latencyNanos());
        });
    }

    private TrafficClass pickClass() {
        double u = random.nextDouble();
        double acc = 0;
        TrafficClass last = TrafficClass.BATCH;
        for (Map.Entry<TrafficClass, Double> e : mix.entrySet()) {
            acc += e.getValue();
            last = e.getKey();
            if (u < acc) {
                return last;
            }
        }
        return last;
    }

    private int second() {
        return (int) Math.min(dispatched.length - 1, clock.nanos() / S);
    }

    private void checkInvariants() {
        BucketState b = governor.bucket(SCOPE).orElseThrow();
        for (BucketState.DimensionState d : b.dimensions()) {
            if (!d.conserved() || !(d.rateFactor() > 0 && d.rateFactor() <= 1) || d.pausedForNanos() < 0) {
                violations.add("t=" + clock.nanos() + " " + d);
            }
        }
    }

    // ---- results ----

    List<String> violations() {
        return violations;
    }

    /** 429s among requests the provider saw in [from, to) seconds. */
    double refusedRatio(int from, int to) {
        long r = sum(refused, from, to);
        long d = sum(dispatched, from, to);
        return d == 0 ? 0 : (double) r / d;
    }

    /** Successful requests per second in [from, to). */
    double throughput(int from, int to) {
        return (double) sum(succeeded, from, to) / (to - from);
    }

    long refused(int from, int to) {
        return sum(refused, from, to);
    }

    long dispatched(int from, int to) {
        return sum(dispatched, from, to);
    }

    long shed(int from, int to) {
        return sum(shed, from, to);
    }

    Mode modeAt(int second) {
        return modeAt[second];
    }

    /** One line per {@code step} seconds, for failure messages. */
    String timeline(int to, int step) {
        StringBuilder sb = new StringBuilder("seed " + seed + "\n  t  sent   ok  429  529 shed mode\n");
        for (int s = 0; s + step <= to; s += step) {
            sb.append(String.format(java.util.Locale.ROOT, "%4d %5d %4d %4d %4d %4d %s%n", s, sum(dispatched, s, s + step),
                    sum(succeeded, s, s + step), sum(refused, s, s + step), sum(overloaded, s, s + step),
                    sum(shed, s, s + step), modeAt[s]));
        }
        for (ModeTransition t : transitions) {
            sb.append(String.format(java.util.Locale.ROOT, "  %.1f s %s -> %s: %s%n", t.atNanos() / 1e9,
                    t.from().wireName(), t.to().wireName(), t.reason()));
        }
        return sb.toString();
    }

    private static long sum(long[] a, int from, int to) {
        long s = 0;
        for (int i = Math.max(0, from); i < Math.min(a.length, to); i++) {
            s += a[i];
        }
        return s;
    }
}
