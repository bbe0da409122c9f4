package dev.sluice.sim;

import dev.sluice.mock.limits.ProviderBehaviour;
import dev.sluice.mock.limits.ProviderFamily;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.TenantConfig;
import dev.sluice.sim.engine.EventLoop;
import dev.sluice.sim.engine.RandomStreams;
import dev.sluice.sim.metrics.Outcome;
import dev.sluice.sim.metrics.ReportBuilder;
import dev.sluice.sim.metrics.RunRecorder;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.provider.ProviderCall;
import dev.sluice.sim.provider.ProviderReply;
import dev.sluice.sim.provider.ProviderUsage;
import dev.sluice.sim.provider.SimProvider;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScriptedEvent;
import dev.sluice.sim.scenario.WorkloadSpec;
import dev.sluice.sim.strategy.Attempt;
import dev.sluice.sim.strategy.LocalRejection;
import dev.sluice.sim.strategy.SimRequest;
import dev.sluice.sim.strategy.Strategy;
import dev.sluice.sim.strategy.StrategyContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One run of one strategy on one scenario in virtual time, against one member of the provider
 * family (the reference model unless asked for another). Clients send the scenario's workload; the
 * strategy decides; simulated providers answer; clients retry what is retryable, and give up when
 * their deadline passes with the request still queued or generating (a timeout: whatever answer
 * comes later is not theirs). Clients stop sending at the end of the scenario's duration, and the
 * run then drains until every attempt has ended (at most {@link #DRAIN_LIMIT} more); requests still
 * open after that are lost.
 */
public final class Simulation implements StrategyContext {

    /** How long the run may drain after the last arrival: longer than any class's queue budget. */
    public static final Duration DRAIN_LIMIT = Duration.ofHours(2);

    private final Scenario scenario;
    private final long seed;
    private final EventLoop loop = new EventLoop();
    private final RandomStreams random;
    private final Map<String, SimProvider> providers = new LinkedHashMap<>();
    private final Map<Long, Client> clients = new HashMap<>();
    private final Map<String, Double> meanOutput = new HashMap<>();
    private final RunRecorder recorder = new RunRecorder();
    private final SplittableRandom jitter;
    private final Strategy strategy;

    private enum State { AT_GATEWAY, AT_PROVIDER, BACKING_OFF, ENDED }

    private static final class Client {
        final SimRequest request;
        final WorkloadSpec spec;
        State state;
        int attempts;
        long queuedNanos;
        /** The client gave up at its deadline; the attempt in flight ends without it. */
        boolean gone;
        /** The attempt submitted last. */
        Attempt current;

        Client(SimRequest request, WorkloadSpec spec) {
            this.request = request;
            this.spec = spec;
        }
    }

    private final java.util.Optional<String> redisUri;
    private final boolean adaptive;

    private final int model;

    private Simulation(Scenario scenario, String strategyName, long seed, int model, boolean checkInvariants,
            java.util.Optional<String> redisUri, boolean adaptive) {
        this.scenario = scenario;
        this.seed = seed;
        this.model = model;
        this.redisUri = redisUri;
        this.adaptive = adaptive;
        this.random = new RandomStreams(seed);
        this.jitter = random.stream("clients/jitter");
        long until = scenario.duration().toNanos();
        for (DeploymentConfig d : scenario.config().deployments().values()) {
            providers.put(d.id(), new SimProvider(d.id(), d.kind().wireName(), scenario.providers().get(d.id()),
                    d.limits(), behaviour(scenario, d, seed, model), loop, random, until));
        }
        // A shared provider scope is one quota at the provider too, at its configured limits, behaving
        // as its first deployment's provider does; every call to any of its deployments passes it.
        Map<String, dev.sluice.sim.provider.SharedQuota> quotas = new LinkedHashMap<>();
        for (DeploymentConfig d : scenario.config().deployments().values()) {
            List<dev.sluice.sim.provider.SharedQuota> above = new java.util.ArrayList<>();
            for (var sc : scenario.config().providerScopesOf(d)) {
                above.add(quotas.computeIfAbsent(sc.id(), id -> new dev.sluice.sim.provider.SharedQuota(id,
                        sc.names().isEmpty() ? id : sc.names().getFirst(), d.kind().wireName(),
                        scenario.providers().get(d.id()).providerLimits(sc.limits(), 1.0),
                        behaviour(scenario, d, seed, model))));
            }
            providers.get(d.id()).underQuotas(above);
        }
        this.strategy = Strategy.create(strategyName, this);
        if (checkInvariants) {
            loop.afterEach(strategy::checkInvariants);
        }
    }

    /**
     * The behaviour of the provider behind {@code d}: member {@code model} of the family for
     * {@code seed} (0, the reference model), with the scenario's pins applied. The same for every
     * strategy, and for the end-to-end mode's mock servers.
     */
    static ProviderBehaviour behaviour(Scenario scenario, DeploymentConfig d, long seed, int model) {
        ProviderBehaviour drawn = ProviderFamily.member(seed, model, d.id(), scenario.duration(),
                SimProvider.facts(d.kind().wireName()));
        return scenario.providers().get(d.id()).behaviour(drawn);
    }

    /**
     * Runs {@code strategy} on {@code scenario} with {@code seed} against the reference provider model.
     *
     * @param checkInvariants check the strategy's invariants (bucket conservation, leases) after
     *     every event; slow, for tests
     */
    public static RunReport run(Scenario scenario, String strategy, long seed, boolean checkInvariants) {
        return run(scenario, strategy, seed, checkInvariants, java.util.Optional.empty());
    }

    /**
     * As {@link #run(Scenario, String, long, boolean)}, with the sluice strategy's shared store of a
     * {@code store.kind: redis} scenario in the Redis server at {@code redisUri} (on virtual time)
     * instead of modelled in memory.
     */
    public static RunReport run(Scenario scenario, String strategy, long seed, boolean checkInvariants,
            java.util.Optional<String> redisUri) {
        return run(scenario, strategy, seed, checkInvariants, redisUri, true);
    }

    /**
     * As {@link #run(Scenario, String, long, boolean, java.util.Optional)}; {@code adaptive} false
     * runs the sluice strategy without adaptive control and ramp, to study the governor alone.
     */
    public static RunReport run(Scenario scenario, String strategy, long seed, boolean checkInvariants,
            java.util.Optional<String> redisUri, boolean adaptive) {
        return run(scenario, strategy, seed, 0, checkInvariants, redisUri, adaptive);
    }

    /**
     * As {@link #run(Scenario, String, long, boolean, java.util.Optional, boolean)}, against member
     * {@code model} of the provider family drawn from {@code seed} (0 for the reference model).
     */
    public static RunReport run(Scenario scenario, String strategy, long seed, int model, boolean checkInvariants,
            java.util.Optional<String> redisUri, boolean adaptive) {
        Simulation s = new Simulation(scenario, strategy, seed, model, checkInvariants, redisUri, adaptive);
        try {
            return s.execute();
        } finally {
            s.strategy.close();
        }
    }

    @Override
    public java.util.Optional<String> redisUri() {
        return redisUri;
    }

    @Override
    public boolean adaptive() {
        return adaptive;
    }

    private RunReport execute() {
        long end = scenario.duration().toNanos();
        for (ScriptedEvent e : scenario.events()) {
            SimProvider p = providers.get(e.deployment());
            loop.at(e.at().toNanos(), () -> {
                switch (e) {
                    case ScriptedEvent.LimitCut c -> p.scaleLimits(c.factor());
                    case ScriptedEvent.LimitRestore r -> p.scaleLimits(1.0);
                    case ScriptedEvent.FaultBurst f -> p.faultBurst(f);
                }
            });
        }
        for (ClientStream stream : ClientStream.all(scenario, random, end,
                d -> providers.get(d).behaviour().counting())) {
            meanOutput.put(stream.spec.name(), stream.spec.outputTokens().mean());
            startStream(stream);
        }
        loop.runUntil(end);
        loop.runWhile(() -> !clients.isEmpty(), end + DRAIN_LIMIT.toNanos());
        long lost = clients.size();
        Map<String, ProviderUsage.Totals> totals = new LinkedHashMap<>();
        providers.forEach((id, p) -> totals.put(id, p.usage().totals()));
        Map<String, Double> weights = new HashMap<>();
        for (TenantConfig t : scenario.config().tenants()) {
            weights.put(t.id(), t.weight());
        }
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("scenario", scenario.name());
        header.put("strategy", strategy.name());
        header.put("seed", seed);
        header.put("provider_model", model);
        Map<String, String> behaviours = new LinkedHashMap<>();
        providers.forEach((id, p) -> behaviours.put(id, p.behaviour().describe()));
        header.put("providers", behaviours);
        header.put("duration_s", scenario.duration().toSeconds());
        header.put("replicas", scenario.replicas());
        if (!adaptive && strategy.name().equals("sluice")) {
            header.put("adaptive", false);
        }
        header.put("store", !scenario.sharedStore() ? "per-replica"
                : redisUri.isPresent() && strategy.name().equals("sluice") ? "redis" : "shared");
        boolean changes = providers.values().stream().anyMatch(p -> p.behaviour().changesLimits());
        RunReport report = ReportBuilder.build(scenario.name(), strategy.name(), recorder, totals, weights, lost,
                changes, header);
        if (!strategy.diagnostics().isEmpty()) {
            var d = report.json().putObject("diagnostics");
            new java.util.TreeMap<>(strategy.diagnostics()).forEach(d::put);
        }
        return report;
    }

    private void startStream(ClientStream stream) {
        Runnable[] arrive = new Runnable[1];
        arrive[0] = () -> {
            SimRequest r = stream.create(loop.now());
            Client c = new Client(r, stream.spec);
            clients.put(r.id(), c);
            recorder.arrived(r);
            if (r.hasDeadline()) {
                loop.at(r.deadlineNanos(), () -> deadlinePassed(c));
            }
            submit(c);
            long next = stream.nextArrival();
            if (next != Long.MAX_VALUE) {
                loop.at(next, arrive[0]);
            }
        };
        long first = stream.nextArrival();
        if (first != Long.MAX_VALUE) {
            loop.at(first, arrive[0]);
        }
    }

    /** The client's deadline: still queued or generating, it gives up; the attempt goes on without it. */
    private void deadlinePassed(Client c) {
        if (c.state == State.ENDED || c.gone) {
            return;
        }
        if (c.state == State.AT_GATEWAY || c.state == State.AT_PROVIDER) {
            recorder.timedOut(c.request, c.state == State.AT_GATEWAY);
        }
        c.gone = true;
        recorder.ended(c.request, Outcome.TIMED_OUT, c.queuedNanos, loop.now());
        if (c.state == State.AT_GATEWAY && strategy.clientGone(c.current)) {
            // The strategy took the waiting attempt out: it will neither send nor refuse it.
            c.state = State.ENDED;
            clients.remove(c.request.id());
            return;
        }
        if (c.state == State.BACKING_OFF) {
            // Not reached while retries never wait past the deadline; nothing is in flight then.
            c.state = State.ENDED;
            clients.remove(c.request.id());
        }
    }

    private void submit(Client c) {
        if (c.gone) {
            return;
        }
        c.state = State.AT_GATEWAY;
        Attempt a = new Attempt(c.request, c.attempts++, loop.now());
        c.current = a;
        strategy.submit(a);
    }

    private Client current(Attempt a, State expected) {
        Client c = clients.get(a.request().id());
        if (c == null || c.state != expected || a.number() != c.attempts - 1) {
            throw new IllegalStateException(a + " ended twice or out of turn (state "
                    + (c == null ? "ended" : c.state) + ", seed " + seed + ")");
        }
        return c;
    }

    @Override
    public void dispatch(Attempt a, long queuedNanos, String deployment, ReplyHandler onReply) {
        Client c = current(a, State.AT_GATEWAY);
        c.state = State.AT_PROVIDER;
        c.queuedNanos += queuedNanos;
        send(c, a, deployment, onReply);
    }

    private void send(Client c, Attempt a, String deployment, ReplyHandler onReply) {
        recorder.dispatched(a, deployment);
        SimRequest r = a.request();
        providers.get(deployment).call(new ProviderCall(r.tenant(), r.providerPromptTokens(),
                r.providerCacheReadTokens(), r.maxTokens(), r.outputTokens(), r.streaming()), reply -> {
                    current(a, State.AT_PROVIDER);
                    recorder.replied(a, deployment, reply);
                    java.util.OptionalLong again = onReply.onReply(reply);
                    if (again.equals(ReplyHandler.ELSEWHERE)) {
                        c.state = State.AT_GATEWAY; // the strategy admits it elsewhere, or rejects it
                        return;
                    }
                    if (again.isPresent()) {
                        loop.after(again.getAsLong(), () -> send(c, a, deployment, onReply));
                        return;
                    }
                    switch (reply.outcome()) {
                        case SUCCESS -> end(c, Outcome.SUCCESS);
                        case TOO_LARGE -> end(c, Outcome.TOO_LARGE);
                        case RATE_LIMITED -> retryOrEnd(c, reply.retryAfterMillis().orElse(0),
                                Outcome.PROVIDER_RATE_LIMITED);
                        default -> retryOrEnd(c, reply.retryAfterMillis().orElse(0), Outcome.PROVIDER_ERROR);
                    }
                });
    }

    @Override
    public void shadow(Attempt a, String deployment, java.util.function.Consumer<ProviderReply> onReply) {
        SimRequest r = a.request();
        providers.get(deployment).call(new ProviderCall(r.tenant(), r.providerPromptTokens(),
                r.providerCacheReadTokens(), r.maxTokens(), r.outputTokens(), r.streaming()), onReply);
    }

    @Override
    public void reject(Attempt a, long queuedNanos, LocalRejection rejection) {
        Client c = current(a, State.AT_GATEWAY);
        c.queuedNanos += queuedNanos;
        recorder.rejectedLocally(a, rejection.code());
        if (rejection.retryable()) {
            retryOrEnd(c, rejection.retryAfterMillis(), Outcome.REJECTED_LOCALLY);
        } else {
            end(c, rejection.code().contains("too_large") ? Outcome.TOO_LARGE : Outcome.REJECTED_LOCALLY);
        }
    }

    private void retryOrEnd(Client c, long hintMillis, Outcome ifNot) {
        if (c.gone) {
            end(c, ifNot);
            return;
        }
        int retriesTaken = c.attempts - 1;
        if (retriesTaken >= c.spec.retry().maxRetries()) {
            end(c, ifNot);
            return;
        }
        long delay = c.spec.retry().delayNanos(retriesTaken, hintMillis, jitter.nextDouble());
        if (c.request.hasDeadline() && loop.now() + delay >= c.request.deadlineNanos()) {
            end(c, ifNot);
            return;
        }
        c.state = State.BACKING_OFF;
        loop.after(delay, () -> submit(c));
    }

    private void end(Client c, Outcome o) {
        c.state = State.ENDED;
        clients.remove(c.request.id());
        if (!c.gone) {
            recorder.ended(c.request, o, c.queuedNanos, loop.now());
        }
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public Scenario scenario() {
        return scenario;
    }

    @Override
    public RandomStreams random() {
        return random;
    }

    @Override
    public double meanOutputTokens(String workload) {
        return meanOutput.getOrDefault(workload, 0.0);
    }
}
