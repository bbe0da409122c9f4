package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.BucketState;
import dev.sluice.store.redis.FailoverConfig;
import dev.sluice.store.redis.FailoverQuotaStore;
import dev.sluice.store.redis.FailurePolicy;
import dev.sluice.store.redis.OwnRedisServer;
import dev.sluice.store.redis.RedisQuotaStore;
import dev.sluice.store.redis.RedisStoreConfig;
import dev.sluice.time.NanoClock;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A steady load through the real gateway on a redis-server of the test's own, while that server is
 * killed and started again, and while it is stopped (SIGSTOP) for three times the command timeout
 * and then let go on (SIGCONT). Two deployments, each allowed 10 requests a second and offered 50:
 * {@code open} fails open to a local share, {@code closed} fails closed. Throughout: every request
 * gets exactly one answer, and only 200, a local 429 or (on {@code closed} alone) a 503; afterwards
 * nothing is held (no lease open anywhere, every bucket conserved, concurrency back to its
 * capacity) and {@code open} admitted no more than the bound docs/REDIS.md gives: the rate over
 * the run plus a burst for the start and two per outage (a fresh local bucket, and the shared
 * bucket refilled meanwhile).
 */
class RedisFaultsUnderLoadTest {

    private static final String ANSWER = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
             "choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}""";
    /** Each deployment's limit: 600 a minute, 10 a second with a one-second window of 10. */
    private static final int RATE_PER_SECOND = 10;
    private static final int BURST = 10;
    /** One request every 10 ms, alternately to each deployment: 50 a second each. */
    private static final long SEND_EVERY_MILLIS = 10;

    private record Sent(String profile, String phase, int status, String code) {}

    @Test
    void killedAndPausedRedisUnderLoadAnswersEveryRequestOnceByPolicyAndLeaksNothing() throws Exception {
        Vertx vertx = Vertx.vertx();
        OwnRedisServer redisServer = new OwnRedisServer();
        redisServer.start();
        HttpServer provider = GatewayFixture.await(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                .requestHandler(req -> req.body().onSuccess(b -> req.response()
                        .putHeader("content-type", "application/json").end(ANSWER))).listen(0));
        SluiceConfig config = ConfigLoader.parse("""
                server: { host: 127.0.0.1, port: 0 }
                store: { kind: redis, redis_uri: "%s", failure_policy: fail_closed }
                deployments:
                  open: { kind: openai-compatible, base_url: "http://127.0.0.1:%d/v1", failure_policy: fail_open_local,
                          limits: { rpm: 600, concurrency: 20 } }
                  closed: { kind: openai-compatible, base_url: "http://127.0.0.1:%d/v1", limits: { rpm: 600, concurrency: 20 } }
                profiles:
                  open: { deployment: open, model: gpt-4o-mini }
                  closed: { deployment: closed, model: gpt-4o-mini }
                orgs: { o: { tenants: { t: { teams: { x: { keys: { k: { secret: "sk-faults" } } } } } } } }
                """.formatted(redisServer.uri(), provider.actualPort(), provider.actualPort()), "faults.yaml", v -> null);
        RedisQuotaStore redis = RedisQuotaStore.connect(redisServer.uri(),
                RedisStoreConfig.builder().namespace("faults").dailyResetZone(ZoneOffset.UTC).build());
        FailoverQuotaStore store = new FailoverQuotaStore(redis, new FailoverConfig(FailurePolicy.FAIL_CLOSED,
                Map.of("open", FailurePolicy.FAIL_OPEN_LOCAL), FailoverConfig.DEFAULT_RETRY_AFTER, ZoneOffset.UTC),
                NanoClock.system(), () -> 1);
        Gateway g = GatewayFixture.await(Gateway.builder(config).vertx(vertx).instances(2).store(store).start());
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        List<Sent> answers = new CopyOnWriteArrayList<>();
        Map<String, Throwable> failures = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        String[] phase = {"healthy"};
        CountDownLatch[] reached = {new CountDownLatch(200)};
        ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
        long startNanos = System.nanoTime();
        try {
            load.scheduleAtFixedRate(() -> {
                int n = sent.incrementAndGet();
                String profile = n % 2 == 0 ? "open" : "closed";
                String at = phase[0];
                http.sendAsync(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                        .timeout(Duration.ofSeconds(30)).header("authorization", "Bearer sk-faults")
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + profile
                                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}")).build(),
                        HttpResponse.BodyHandlers.ofString())
                        .whenComplete((r, e) -> {
                            if (e != null) {
                                failures.put(profile + " #" + n + " (" + at + ")", e);
                            } else {
                                answers.add(new Sent(profile, at, r.statusCode(), code(r.body())));
                            }
                        });
                reached[0].countDown();
            }, 0, SEND_EVERY_MILLIS, TimeUnit.MILLISECONDS);

            next(reached, phase, "killed", 200);
            redisServer.kill();
            next(reached, phase, "restarted", 300);
            redisServer.start();
            // Three times the 500 ms command timeout: calls in flight time out, the failure policy takes over.
            next(reached, phase, "paused", 150);
            redisServer.pause();
            next(reached, phase, "resumed", 300);
            redisServer.resume();
            reached[0].await(30, TimeUnit.SECONDS);
        } finally {
            load.shutdown();
            load.awaitTermination(10, TimeUnit.SECONDS);
        }
        try {
            int total = sent.get();
            GatewayFixture.awaitCondition(vertx, () -> answers.size() + failures.size() == total,
                    () -> (total - answers.size() - failures.size()) + " requests without an answer");
            // The run lasts until its last answer: a request may wait in the queue for a refill after it was sent.
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            assertThat(failures).as("requests that got no answer").isEmpty();
            assertThat(g.counters().duplicateAnswers()).isZero();
            // Queued settlements are replayed after the next call Redis answers: a few more requests make those calls.
            for (int i = 0; i < 200 && redis.pendingReplays() > 0; i++) {
                send(http, g, "closed");
            }
            assertThat(redis.pendingReplays()).as("settlements still queued for Redis").isZero();
            GatewayFixture.awaitCondition(vertx, () -> g.counters().balanced() && store.openLeases() == 0,
                    () -> "still held: " + g.counters() + ", leases " + store.openLeases());

            for (String profile : List.of("open", "closed")) {
                assertThat(answers).filteredOn(a -> a.profile().equals(profile)).extracting(Sent::status)
                        .as(profile).allMatch(s -> s == 200 || s == 429 || (s == 503 && profile.equals("closed")));
                BucketState state = g.governor().bucket(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, profile)).orElseThrow();
                assertThat(state.dimensions()).as(profile).allSatisfy(d -> {
                    assertThat(d.conserved()).as(d.dimension().name()).isTrue();
                    assertThat(d.open()).as(d.dimension().name()).isZero();
                });
                assertThat(state.of(Dimension.CONCURRENT_REQUESTS).orElseThrow().available()).isEqualTo(20.0);
            }
            // Fail closed: told the quota store is away while it was; fail open: served from the local share then.
            assertThat(answers).filteredOn(a -> a.profile().equals("closed") && a.status() == 503)
                    .extracting(Sent::code).isNotEmpty().containsOnly("quota_store_unavailable");
            assertThat(answers).filteredOn(a -> a.profile().equals("open") && a.status() == 200
                    && (a.phase().equals("killed") || a.phase().equals("paused"))).isNotEmpty();
            long admittedOpen = answers.stream().filter(a -> a.profile().equals("open") && a.status() == 200).count();
            long offeredOpen = answers.stream().filter(a -> a.profile().equals("open")).count();
            assertThat(admittedOpen).as("open admitted of %d offered in %.1f s: %s", offeredOpen, seconds, tally(answers))
                    .isLessThanOrEqualTo((long) (RATE_PER_SECOND * seconds) + 5L * BURST);
        } finally {
            GatewayFixture.await(g.stop());
            store.close();
            redisServer.close();
            GatewayFixture.await(vertx.close());
        }
    }

    /** Waits until the phase's requests are sent, then names the next phase, which lasts {@code requests}. */
    private static void next(CountDownLatch[] reached, String[] phase, String name, int requests) throws Exception {
        assertThat(reached[0].await(60, TimeUnit.SECONDS)).as("load reached " + name).isTrue();
        reached[0] = new CountDownLatch(requests);
        phase[0] = name;
    }

    private static void send(HttpClient http, Gateway g, String profile) {
        try {
            http.send(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(10)).header("authorization", "Bearer sk-faults")
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + profile
                            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}")).build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Answers by deployment, phase and status, for a failure's message. */
    private static Map<String, Long> tally(List<Sent> answers) {
        return answers.stream().collect(java.util.stream.Collectors.groupingBy(
                a -> a.profile() + "/" + a.phase() + "/" + a.status(), java.util.TreeMap::new,
                java.util.stream.Collectors.counting()));
    }

    /** The error's code, when the body is one. */
    private static String code(String body) {
        int i = body.indexOf("\"code\":\"");
        return i < 0 ? "" : body.substring(i + 8, body.indexOf('"', i + 8));
    }
}
