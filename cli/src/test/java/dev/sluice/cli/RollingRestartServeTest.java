package dev.sluice.cli;

import static dev.sluice.store.redis.ReplicasOnRedis.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.Mode;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.BucketState;
import dev.sluice.store.redis.ReplicasOnRedis;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fleet of {@code sluice serve} replicas ({@link ServeCommand#start}) on one redis-server of the
 * test's own, under steady load from a round-robin client that is twice the deployment's limit,
 * while a fourth replica joins and then every replica is restarted in turn, as an operator rolls
 * out a new build: each is taken out of the client's rotation, stopped gracefully (its requests in
 * flight and in its queue drain) and started again. Nothing may be lost: every request gets one
 * answer, the provider never sees more than the one shared limit, the shared bucket's counters
 * are conserved with no lease left open, and the replicas' modes agree within the documented 1 s
 * through a provider incident that falls in the middle of the restarts.
 */
class RollingRestartServeTest {

    private static final String ANSWER = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
             "choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}""";

    /** 300 a minute: 5 a second. Each replica its own provider path, so the provider sees who sent. */
    private static final String YAML = """
            server: { port: 0 }
            store: { kind: redis, redis_uri: "%s" }
            ledger: { kind: off }
            deployments:
              d:
                kind: openai-compatible
                base_url: "http://127.0.0.1:%d/%s/v1"
                limits: { rpm: 300 }
                adaptive: { enabled: true, fault_max: 1s }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs:
              o:
                tenants:
                  t:
                    teams:
                      x:
                        keys:
                          batch: { secret: "sk-roll-batch", class: batch, max_class: batch }
            """;

    private static final Duration PROVIDER_DELAY = Duration.ofMillis(150);
    /** The most the client sends: 90 s of load at most, however slow the machine. */
    private static final int MAX_REQUESTS = 900;
    private static final Duration EVERY = Duration.ofMillis(100);

    @RegisterExtension
    final ReplicasOnRedis redis = new ReplicasOnRedis();

    private final Vertx vertx = Vertx.vertx();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** When each request reached the provider (System.nanoTime), and from which replica name. */
    private final List<Long> arrivals = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> byReplica = new java.util.concurrent.ConcurrentHashMap<>();
    /** While set, the provider refuses every request with a 429, as during a provider incident. */
    private final AtomicBoolean incident = new AtomicBoolean();
    private HttpServer provider;

    /** A running replica: its name (the provider path), what serves, and how many requests the client sent it. */
    private record Replica(String name, ServeCommand.Serving serving, AtomicInteger sent,
            List<CompletableFuture<HttpResponse<String>>> calls) {}

    /** Every replica ever started, stopped ones included (their counters stay readable). */
    private final List<Replica> all = new CopyOnWriteArrayList<>();
    /** The client's rotation: the replicas it sends to. */
    private final List<Replica> rotation = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startProvider() throws Exception {
        provider = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1")).requestHandler(req -> {
            arrivals.add(System.nanoTime());
            byReplica.computeIfAbsent(req.path().split("/")[1], k -> new AtomicInteger()).incrementAndGet();
            boolean refused = incident.get();
            req.body().onSuccess(b -> vertx.setTimer(PROVIDER_DELAY.toMillis(), t -> {
                if (refused) {
                    req.response().setStatusCode(429).putHeader("content-type", "application/json")
                            .putHeader("retry-after-ms", "500")
                            .end("{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\","
                                    + "\"code\":\"rate_limit_exceeded\"}}");
                } else {
                    req.response().putHeader("content-type", "application/json").end(ANSWER);
                }
            }));
        }).listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        for (Replica r : rotation) {
            r.serving().close();
        }
        provider.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aReplicaJoinsAndEveryReplicaRestartsInTurnUnderLoadAndNothingIsLost() throws Exception {
        for (String name : List.of("a", "b", "c")) {
            rotation.add(start(name));
        }
        awaitTrue(Duration.ofSeconds(5), () -> fleetSizes(3));

        ModeSampler modes = new ModeSampler();
        Thread sampler = Thread.ofPlatform().name("mode-sampler").start(modes);
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        AtomicBoolean restarted = new AtomicBoolean();
        // The load: one request every 100 ms (10 a second against the limit's 5), round robin,
        // from before the join until a second after the last restart.
        Thread client = Thread.ofPlatform().name("round-robin-client").start(() -> {
            long endAt = Long.MAX_VALUE;
            for (int i = 0; i < MAX_REQUESTS && System.nanoTime() < endAt; i++) {
                if (endAt == Long.MAX_VALUE && restarted.get()) {
                    endAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                }
                long due = start + i * EVERY.toNanos();
                java.util.concurrent.locks.LockSupport.parkNanos(due - System.nanoTime());
                synchronized (rotation) {
                    Replica r = rotation.get(next.getAndIncrement() % rotation.size());
                    r.sent().incrementAndGet();
                    CompletableFuture<HttpResponse<String>> c = send(r);
                    r.calls().add(c);
                    calls.add(c);
                }
            }
        });

        // At 2 s a fourth replica joins while the others have queues.
        awaitTrue(Duration.ofSeconds(10), () -> System.nanoTime() - start > TimeUnit.SECONDS.toNanos(2));
        Replica joined = start("d");
        synchronized (rotation) {
            rotation.add(joined);
        }
        // Then every replica restarts in turn, the provider refusing for 600 ms during the second restart.
        for (int i = 0; i < 4; i++) {
            if (i == 1) {
                incident.set(true);
                Thread.ofVirtual().start(() -> {
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(600));
                    incident.set(false);
                });
            }
            restart(rotation.getFirst());
        }
        restarted.set(true);
        client.join(TimeUnit.SECONDS.toMillis(90));
        assertThat(client.isAlive()).isFalse();

        // One answer per request: a 200, or a refusal in the provider's error shape, with a retry hint
        // unless it says a retry would not help (a deadline the call itself cannot meet), never a lost connection.
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            HttpResponse<String> resp = c.get(30, TimeUnit.SECONDS);
            statuses.merge(resp.statusCode(), 1, Integer::sum);
            if (resp.statusCode() != 200) {
                assertThat(resp.statusCode()).as(resp.body()).isIn(429, 503);
                assertThat(resp.body()).contains("\"error\"");
                if (!resp.body().contains("\"retryable\":false")) {
                    assertThat(resp.headers().firstValue("retry-after")).as(resp.body()).isPresent();
                }
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        modes.stop();
        sampler.join();
        assertThat(calls.size()).isLessThan(MAX_REQUESTS);
        long started = all.stream().mapToLong(r -> r.serving().gateway().counters().started()).sum();
        long answered = all.stream().mapToLong(r -> r.serving().gateway().counters().answered()).sum();
        assertThat(started).as("requests that reached a replica").isEqualTo(calls.size());
        assertThat(answered).isEqualTo(calls.size());
        assertThat(all.stream().mapToLong(r -> r.serving().gateway().counters().duplicateAnswers()).sum()).isZero();

        // The joined replica took its share of the work: it served, it did not refuse all of it.
        assertThat(byReplica.getOrDefault("d", new AtomicInteger()).get()).as("served by the joined replica " + byReplica)
                .isGreaterThanOrEqualTo(5);

        // The one shared limit held across joins and restarts: at most the burst plus the refill.
        int served = statuses.getOrDefault(200, 0);
        assertThat(arrivals.size()).as(statuses.toString()).isLessThanOrEqualTo((int) Math.ceil(5 + 5 * seconds));
        assertThat(served).as(statuses.toString()).isGreaterThanOrEqualTo((int) (0.5 * 5 * seconds));

        // The shared bucket: conserved, nothing open, no lease left in Redis.
        var store = redis.store();
        store.expireLeases();
        assertThat(store.openLeases()).isZero();
        BucketState bucket = rotation.getFirst().serving().gateway().governor()
                .bucket(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "d")).orElseThrow();
        BucketState.DimensionState requests = bucket.of(Dimension.REQUESTS).orElseThrow();
        assertThat(requests.conserved()).as(requests.toString()).isTrue();
        assertThat(requests.open()).as(requests.toString()).isZero();
        assertThat(requests.expired()).as(requests.toString()).isZero();

        // The live replicas never disagreed on the deployment's mode for longer than 1 s.
        assertThat(modes.longestDisagreement()).as("longest disagreement").isLessThanOrEqualTo(Duration.ofSeconds(1));
    }

    /** Takes {@code r} out of rotation, waits until what was sent to it arrived, stops it and starts it again. */
    private void restart(Replica r) throws Exception {
        synchronized (rotation) {
            rotation.remove(r);
        }
        // As a proxy does: out of rotation first, so that no request is sent to a closing port.
        try {
            awaitTrue(Duration.ofSeconds(30), () -> r.serving().gateway().counters().started() == r.sent().get());
        } catch (AssertionError e) {
            Map<String, Integer> states = new TreeMap<>();
            for (var c : r.calls()) {
                String k = !c.isDone() ? "pending" : c.isCompletedExceptionally() ? "failed"
                        : Integer.toString(c.join().statusCode());
                states.merge(k, 1, Integer::sum);
            }
            throw new AssertionError(r.name() + ": sent " + r.sent().get() + " " + states + ", arrived "
                    + r.serving().gateway().counters(), e);
        }
        r.serving().close();
        Replica again = start(r.name());
        synchronized (rotation) {
            rotation.add(again);
        }
        // A second between restarts, as a rollout waits for the new replica's readiness and more.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        awaitTrue(Duration.ofSeconds(5), () -> System.nanoTime() > until);
    }

    private Replica start(String name) throws Exception {
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        SluiceConfig config = ConfigLoader.parse(YAML.formatted(redis.uri(), provider.actualPort(), name),
                name + ".yaml", v -> null);
        // As an orchestrator does, a start that failed (Redis slow to answer on a loaded machine) is tried again.
        java.util.Optional<ServeCommand.Serving> started = java.util.Optional.empty();
        for (int attempt = 0; attempt < 3 && started.isEmpty(); attempt++) {
            started = ServeCommand.start(config, new PrintStream(errors, true, StandardCharsets.UTF_8));
        }
        ServeCommand.Serving s = started.orElseThrow(() -> new AssertionError(errors.toString(StandardCharsets.UTF_8)));
        Replica r = new Replica(name, s, new AtomicInteger(), new CopyOnWriteArrayList<>());
        all.add(r);
        return r;
    }

    private boolean fleetSizes(int n) {
        return rotation.stream().allMatch(r -> r.serving().fleet().orElseThrow().lastReading().others().size() == n - 1);
    }

    private CompletableFuture<HttpResponse<String>> send(Replica r) {
        HttpRequest b = HttpRequest.newBuilder(URI.create(r.serving().gateway().baseUrl() + "/v1/chat/completions"))
                .header("authorization", "Bearer sk-roll-batch").header("content-type", "application/json")
                .header("x-sluice-deadline-ms", "8000").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"p\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}"))
                .build();
        return http.sendAsync(b, HttpResponse.BodyHandlers.ofString());
    }

    /** Samples the mode in force on every replica in rotation every 50 ms; keeps the longest span they differed. */
    private final class ModeSampler implements Runnable {
        private volatile boolean running = true;
        private final AtomicLong longest = new AtomicLong();

        @Override
        public void run() {
            long since = -1;
            while (running) {
                java.util.Set<Mode> seen = java.util.EnumSet.noneOf(Mode.class);
                for (Replica r : rotation) {
                    var g = r.serving().gateway();
                    g.adaptive().flatMap(a -> a.find("d")).ifPresent(c -> seen.add(c.modeInForce(g.governor().clock().nanos())));
                }
                long now = System.nanoTime();
                if (seen.size() > 1) {
                    if (since < 0) {
                        since = now;
                    }
                    longest.accumulateAndGet(now - since, Math::max);
                } else {
                    since = -1;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }

        void stop() {
            running = false;
        }

        Duration longestDisagreement() {
            return Duration.ofNanos(longest.get());
        }
    }
}
