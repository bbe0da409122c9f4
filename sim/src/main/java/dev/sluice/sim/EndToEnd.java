package dev.sluice.sim;

import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.TenantConfig;
import dev.sluice.mock.http.FaultConfig;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.LatencyConfig;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.mock.limits.TenantStats;
import dev.sluice.sim.engine.RandomStreams;
import dev.sluice.sim.metrics.Outcome;
import dev.sluice.sim.metrics.ReportBuilder;
import dev.sluice.sim.metrics.RunRecorder;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.provider.ProviderUsage;
import dev.sluice.sim.scenario.FaultKind;
import dev.sluice.sim.scenario.ProviderSpec;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScriptedEvent;
import dev.sluice.sim.strategy.Attempt;
import dev.sluice.sim.strategy.SimRequest;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The end-to-end mode: the scenario's workload in real time, over HTTP, through the real gateway
 * ({@link Gateway}) to one mock provider server per deployment ({@link MockProviderServer}), both on
 * 127.0.0.1 with free ports. The scenario is compressed to the time bound; clients send the same
 * requests the simulator generates for the seed and retry as the simulator's clients do. Only the
 * {@code sluice} strategy exists here: the other strategies are simulator models, not gateway modes.
 */
final class EndToEnd {

    private static final Pattern PROMPT = Pattern.compile("\"prompt_tokens\"\\s*:\\s*(\\d+)");
    private static final Pattern COMPLETION = Pattern.compile("\"completion_tokens\"\\s*:\\s*(\\d+)");
    private static final Pattern DECISION = Pattern.compile("\"gateway_decision\"\\s*:\\s*\"([a-z_]+)\"");
    private static final String FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do ";
    /** How long in-flight requests may finish after the last arrival before the clients give up. */
    private static final Duration DRAIN = Duration.ofSeconds(30);

    private final Scenario scenario;
    private final long seed;
    private final Vertx vertx = Vertx.vertx();
    private final Map<String, MockProviderServer> mocks = new LinkedHashMap<>();
    private final RunRecorder recorder = new RunRecorder();
    private final Map<Long, Client> clients = new HashMap<>();
    private final SplittableRandom jitter;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private Context context;
    private HttpClient http;
    private Gateway gateway;
    private long origin;
    private boolean arrivalsOver;
    private int streamsOpen;

    private static final class Client {
        final SimRequest request;
        final ClientStream stream;
        int attempts;
        long queuedNanos;

        Client(SimRequest request, ClientStream stream) {
            this.request = request;
            this.stream = stream;
        }
    }

    private final boolean adaptive;

    private final int model;

    private EndToEnd(Scenario scenario, long seed, int model, boolean adaptive) {
        this.scenario = scenario;
        this.seed = seed;
        this.model = model;
        this.adaptive = adaptive;
        this.jitter = new RandomStreams(seed).stream("clients/jitter");
    }

    /** Runs {@code scenario}, compressed to at most {@code bound}, through the gateway in real time. */
    static RunReport run(Scenario scenario, String strategy, long seed, Duration bound) {
        return run(scenario, strategy, seed, bound, true);
    }

    /** As {@link #run(Scenario, String, long, Duration)}; {@code adaptive} false starts the gateway without adaptive control. */
    static RunReport run(Scenario scenario, String strategy, long seed, Duration bound, boolean adaptive) {
        return run(scenario, strategy, seed, 0, bound, adaptive);
    }

    /**
     * As {@link #run(Scenario, String, long, Duration, boolean)}, the mock servers behaving as member
     * {@code model} of the provider family for {@code seed}.
     */
    static RunReport run(Scenario scenario, String strategy, long seed, int model, Duration bound,
            boolean adaptive) {
        if (!strategy.equals("sluice")) {
            throw new IllegalArgumentException("strategy: " + strategy
                    + " (expected: sluice; the end-to-end mode runs the real gateway only)");
        }
        Scenario s = scenario.duration().compareTo(bound) > 0 ? scenario.scaledTo(bound) : scenario;
        EndToEnd e = new EndToEnd(s, seed, model, adaptive);
        try {
            return e.execute();
        } finally {
            e.vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    private RunReport execute() {
        long until = scenario.duration().toNanos();
        startMocks().compose(x -> startGateway()).toCompletionStage().toCompletableFuture().orTimeout(60,
                TimeUnit.SECONDS).join();
        context = vertx.getOrCreateContext();
        context.runOnContext(v -> {
            http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                    new io.vertx.core.http.PoolOptions().setHttp1MaxSize(256));
            origin = System.nanoTime();
            for (ScriptedEvent e : scenario.events()) {
                vertx.setTimer(Math.max(1, e.at().toMillis()), t -> apply(e));
            }
            List<ClientStream> streams = ClientStream.all(scenario, new RandomStreams(seed), until,
                    d -> behaviour(d).counting());
            streamsOpen = streams.size();
            streams.forEach(this::schedule);
        });
        try {
            drained.get(until / 1_000_000 + DRAIN.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (Exception timeout) {
            // Whatever is still open is reported as lost below.
        }
        CompletableFuture<RunReport> report = new CompletableFuture<>();
        context.runOnContext(v -> {
            try {
                report.complete(report(until));
            } catch (RuntimeException ex) {
                report.completeExceptionally(ex);
            }
        });
        RunReport r = report.orTimeout(10, TimeUnit.SECONDS).join();
        if (gateway != null) {
            gateway.stop().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        }
        return r;
    }

    private long now() {
        return System.nanoTime() - origin;
    }

    private dev.sluice.mock.limits.ProviderBehaviour behaviour(String deployment) {
        return Simulation.behaviour(scenario, scenario.config().deployments().get(deployment), seed, model);
    }

    private Future<Void> startMocks() {
        Future<Void> all = Future.succeededFuture();
        for (DeploymentConfig d : scenario.config().deployments().values()) {
            ProviderSpec spec = scenario.providers().get(d.id());
            double meanOut = scenario.workload().stream().mapToDouble(w -> w.outputTokens().mean()).average()
                    .orElse(100);
            long mean = Math.max(2, Math.round(meanOut));
            MockConfig mc = MockConfig.builder(flavour(d.kind().wireName()))
                    .port(0)
                    .limits(spec.providerLimits(d.limits(), 1.0))
                    .behaviour(behaviour(d.id()))
                    .latency(new LatencyConfig(spec.latency().ttftMedian(), spec.latency().tokensPerSecond(), 8))
                    .faults(faults(spec.errorRate(), spec.errors()))
                    .output(mean, mean / 2)
                    .seed(seed)
                    .build();
            all = all.compose(x -> MockProviderServer.start(vertx, mc).map(m -> {
                mocks.put(d.id(), m);
                return null;
            }));
        }
        return all;
    }

    private Future<Void> startGateway() {
        Map<String, DeploymentConfig> pointed = new LinkedHashMap<>();
        for (DeploymentConfig d : scenario.config().deployments().values()) {
            pointed.put(d.id(), new DeploymentConfig(d.id(), d.kind(), URI.create(mocks.get(d.id()).baseUrl()),
                    d.apiKeyEnv(), d.apiKey(), d.scope(), d.azureDeployment(), d.apiVersion(), d.limits(),
                    d.adaptive(), d.ramp(), d.failurePolicy(), d.capabilities()));
        }
        SluiceConfig cfg = scenario.config().withDeployments(pointed)
                .withServer(scenario.config().server().withPort(0));
        // The gateway wires adaptive control itself (one controller per deployment, ticked by a timer).
        return Gateway.builder(cfg).vertx(vertx).seed(seed).adaptive(adaptive).start().map(g -> {
            gateway = g;
            return null;
        });
    }

    private void schedule(ClientStream stream) {
        long next = stream.nextArrival();
        if (next == Long.MAX_VALUE) {
            streamsOpen--;
            arrivalsOver = streamsOpen == 0;
            checkDrained();
            return;
        }
        vertx.setTimer(Math.max(1, (next - now()) / 1_000_000), t -> {
            SimRequest r = stream.create(now());
            Client c = new Client(r, stream);
            clients.put(r.id(), c);
            recorder.arrived(r);
            send(c);
            schedule(stream);
        });
    }

    private void send(Client c) {
        SimRequest r = c.request;
        Attempt a = new Attempt(r, c.attempts++, now());
        String body = body(r, c.stream.profile.id());
        RequestOptions opts = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                .setPort(gateway.port()).setURI("/v1/chat/completions")
                .putHeader("authorization", "Bearer " + scenario.secrets().getOrDefault(r.path().apiKey(), ""))
                .putHeader("content-type", "application/json")
                .putHeader("x-sluice-class", r.trafficClass().wireName());
        if (r.hasDeadline()) {
            opts.putHeader("x-sluice-deadline-ms", Long.toString(Math.max(1, (r.deadlineNanos() - now()) / 1_000_000)));
        }
        http.request(opts).compose(req -> req.send(Buffer.buffer(body)).compose(resp -> resp.body().map(b -> {
            answered(c, a, resp.statusCode(), resp.getHeader("x-sluice-queued-ms"), resp.getHeader("retry-after-ms"),
                    resp.getHeader("retry-after"), b.toString());
            return null;
        }))).onFailure(err -> answered(c, a, 0, null, null, null, ""));
    }

    private void answered(Client c, Attempt a, int status, String queuedMs, String retryMs, String retryS, String body) {
        if (!clients.containsKey(c.request.id())) {
            return;
        }
        if (c.request.hasDeadline() && now() > c.request.deadlineNanos()) {
            // The client would have given up at its deadline: still queued, or still generating.
            long queued = queuedMs == null ? 0 : parseLong(queuedMs) * 1_000_000;
            recorder.timedOut(c.request, a.submittedAtNanos() + queued >= c.request.deadlineNanos());
            end(c, Outcome.TIMED_OUT);
            return;
        }
        Matcher dm = DECISION.matcher(body);
        String decision = dm.find() ? dm.group(1) : "";
        boolean local = !decision.isEmpty() && !decision.equals("admitted_then_provider_rejected");
        if (queuedMs != null) {
            c.queuedNanos += parseLong(queuedMs) * 1_000_000;
        }
        long hint = retryMs != null ? parseLong(retryMs) : retryS != null ? parseLong(retryS) * 1000 : 0;
        if (local) {
            recorder.rejectedLocally(a, decision);
            if (status == 429 || status == 503) {
                retryOrEnd(c, hint, Outcome.REJECTED_LOCALLY);
            } else {
                end(c, Outcome.REJECTED_LOCALLY);
            }
            return;
        }
        recorder.dispatched(a, a.request().deployment());
        if (status >= 200 && status < 300) {
            long out = lastNumber(COMPLETION, body, c.request.outputTokens());
            recorder.replied(a, a.request().deployment(), reply(dev.sluice.sim.provider.ProviderReply.Outcome.SUCCESS, out));
            end(c, Outcome.SUCCESS);
        } else if (status == 429) {
            recorder.replied(a, a.request().deployment(), reply(dev.sluice.sim.provider.ProviderReply.Outcome.RATE_LIMITED, 0));
            retryOrEnd(c, hint, Outcome.PROVIDER_RATE_LIMITED);
        } else {
            recorder.replied(a, a.request().deployment(), reply(dev.sluice.sim.provider.ProviderReply.Outcome.SERVER_ERROR, 0));
            if (status == 0 || status == 408 || status == 409 || status >= 500) {
                retryOrEnd(c, hint, Outcome.PROVIDER_ERROR);
            } else {
                end(c, Outcome.PROVIDER_ERROR);
            }
        }
    }

    private static dev.sluice.sim.provider.ProviderReply reply(dev.sluice.sim.provider.ProviderReply.Outcome o,
            long out) {
        return new dev.sluice.sim.provider.ProviderReply(o, 0, 0, out, java.util.OptionalLong.empty(),
                java.util.Optional.empty(), new dev.sluice.signal.ProviderSignal(dev.sluice.signal.SignalStatus.SUCCESS, 200,
                        java.util.Optional.empty(), java.util.OptionalLong.empty(), false, List.of(),
                        dev.sluice.signal.ProviderSignal.REASON_OK, 0));
    }

    private void retryOrEnd(Client c, long hintMillis, Outcome ifNot) {
        int taken = c.attempts - 1;
        if (taken >= c.stream.spec.retry().maxRetries()) {
            end(c, ifNot);
            return;
        }
        long delay = c.stream.spec.retry().delayNanos(taken, hintMillis, jitter.nextDouble());
        if (c.request.hasDeadline() && now() + delay >= c.request.deadlineNanos()) {
            end(c, ifNot);
            return;
        }
        vertx.setTimer(Math.max(1, delay / 1_000_000), t -> send(c));
    }

    private void end(Client c, Outcome o) {
        clients.remove(c.request.id());
        recorder.ended(c.request, o, c.queuedNanos, now());
        checkDrained();
    }

    private void checkDrained() {
        if (arrivalsOver && clients.isEmpty()) {
            drained.complete(null);
        }
    }

    private void apply(ScriptedEvent e) {
        MockProviderServer m = mocks.get(e.deployment());
        DeploymentConfig d = scenario.config().deployments().get(e.deployment());
        ProviderSpec spec = scenario.providers().get(e.deployment());
        switch (e) {
            case ScriptedEvent.LimitCut cut -> m.setLimits(spec.providerLimits(d.limits(), cut.factor()));
            case ScriptedEvent.LimitRestore r -> m.setLimits(spec.providerLimits(d.limits(), 1.0));
            case ScriptedEvent.FaultBurst f -> {
                FaultConfig before = m.faults();
                m.setFaults(faults(f.errorRate(), f.errors()));
                vertx.setTimer(Math.max(1, f.duration().toMillis()), t -> m.setFaults(before));
            }
        }
    }

    private RunReport report(long until) {
        long lost = recorder.open();
        Map<String, ProviderUsage.Totals> totals = new LinkedHashMap<>();
        double minutes = until / 60e9;
        for (var e : mocks.entrySet()) {
            ProviderLimits l = scenario.providers().get(e.getKey())
                    .providerLimits(scenario.config().deployments().get(e.getKey()).limits(), 1.0);
            long accepted = 0;
            long input = 0;
            long output = 0;
            long rejected = 0;
            Map<String, Long> byLimit = new java.util.TreeMap<>();
            for (TenantStats t : e.getValue().stats().tenants().values()) {
                accepted += t.accepted();
                input += t.inputTokens();
                output += t.outputTokens();
                rejected += t.rejected();
                t.limited().forEach((k, v) -> byLimit.merge(k.name().toLowerCase(java.util.Locale.ROOT), v, Long::sum));
            }
            // One bin over the whole run: the mocks' statistics are not timed.
            double[][] capacity = {{rate(l.rpm()) * minutes, rate(l.inputTpm()) * minutes,
                rate(l.outputTpm()) * minutes, rate(l.tpm()) * minutes}};
            double[][] acceptedBins = {{accepted, input, output, input + output}};
            double[] store = {0, rate(l.inputTpm()), rate(l.outputTpm()), rate(l.tpm())};
            totals.put(e.getKey(), new ProviderUsage.Totals(until, capacity, acceptedBins, store, new double[][] {store},
                    accepted + rejected,
                    rejected, byLimit, accepted, input, output, accepted));
        }
        Map<String, Double> weights = new HashMap<>();
        for (TenantConfig t : scenario.config().tenants()) {
            weights.put(t.id(), t.weight());
        }
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("scenario", scenario.name());
        header.put("strategy", "sluice");
        header.put("mode", "end-to-end");
        header.put("seed", seed);
        header.put("duration_s", scenario.duration().toSeconds());
        header.put("replicas", 1);
        header.put("store", "per-replica");
        boolean changes = scenario.config().deployments().keySet().stream()
                .anyMatch(d -> behaviour(d).changesLimits());
        header.put("provider_model", model);
        return ReportBuilder.build(scenario.name(), "sluice", recorder, totals, weights, lost, changes, header);
    }

    private static double rate(long v) {
        return ProviderLimits.isLimited(v) ? v : 0;
    }

    private static String body(SimRequest r, String profile) {
        // The mock counts a quarter token per character plus framing; the gateway's tokenizer comes close.
        long chars = Math.max(4, (r.promptTokens() - 7) * 4);
        StringBuilder text = new StringBuilder((int) chars);
        while (text.length() < chars) {
            text.append(FILLER);
        }
        text.setLength((int) chars);
        return "{\"model\":\"" + profile + "\",\"max_tokens\":" + r.maxTokens() + ",\"stream\":" + r.streaming()
                + (r.streaming() ? ",\"stream_options\":{\"include_usage\":true}" : "")
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
    }

    private static long lastNumber(Pattern p, String body, long fallback) {
        Matcher m = p.matcher(body);
        long v = -1;
        while (m.find()) {
            v = Long.parseLong(m.group(1));
        }
        return v < 0 ? fallback : v;
    }

    private static long parseLong(String s) {
        try {
            return (long) Math.ceil(Double.parseDouble(s.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Flavour flavour(String kind) {
        return switch (kind) {
            case "azure-openai" -> Flavour.AZURE_OPENAI;
            case "anthropic" -> Flavour.ANTHROPIC;
            case "gemini" -> Flavour.GEMINI;
            default -> Flavour.OPENAI;
        };
    }

    private static FaultConfig faults(double rate, List<FaultKind> kinds) {
        if (rate <= 0 || kinds.isEmpty()) {
            return FaultConfig.NONE;
        }
        double each = rate / kinds.size();
        FaultConfig.Builder b = FaultConfig.builder();
        for (FaultKind k : kinds) {
            switch (k) {
                case SERVER_ERROR -> b.serverError(each);
                case OVERLOADED -> b.overloaded(each);
                case RESET -> b.midStreamReset(each);
            }
        }
        return b.build();
    }
}
