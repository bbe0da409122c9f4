package dev.sluice.cli;

import static dev.sluice.store.redis.ReplicasOnRedis.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.AdaptiveController;
import dev.sluice.adapt.Mode;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three replicas started as {@code sluice serve} starts them ({@link ServeCommand#start}: gateway,
 * heartbeat, change relay and fleet view), each on its own port, on one redis-server of the test's
 * own ({@link ReplicasOnRedis}), in front of one provider. The three have the same configuration
 * except the provider path ({@code /r0/v1}, {@code /r1/v1}, {@code /r2/v1}; the deployment and so
 * its shared buckets are the same), so the provider can tell which replica sent a request and answer one replica alone
 * with refusals, as a provider does whose trouble only one replica happened to meet first.
 */
class ThreeReplicasServeTest {

    private static final String ANSWER = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
             "choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}""";

    private static final String YAML = """
            server: { port: 0 }
            store: { kind: redis, redis_uri: "%s" }
            ledger: { kind: off }
            deployments:
              d:
                kind: openai-compatible
                base_url: "http://127.0.0.1:%d/r%d/v1"
                limits: { rpm: 120 }
                adaptive: { enabled: true, fault_max: 1s }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs:
              o:
                tenants:
                  t:
                    teams:
                      x:
                        keys:
                          batch: { secret: "sk-fleet-batch", class: batch, max_class: batch }
                          chat: { secret: "sk-fleet-chat", class: interactive }
            """;

    /** What the provider answers the requests of one replica. */
    private enum Answer { OK, LIMITED, OVERLOADED }

    @RegisterExtension
    final ReplicasOnRedis redis = new ReplicasOnRedis();
    private final Vertx vertx = Vertx.vertx();
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    /** When each request reached the provider (System.nanoTime). */
    private final ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<ServeCommand.Serving> replicas = new ArrayList<>();
    private HttpServer provider;

    @BeforeEach
    void start() throws Exception {
        provider = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1")).requestHandler(req -> {
            arrivals.add(System.nanoTime());
            String replica = req.path().split("/")[1];
            req.body().onSuccess(b -> {
                switch (answers.getOrDefault(replica, Answer.OK)) {
                    case OK -> req.response().putHeader("content-type", "application/json").end(ANSWER);
                    case LIMITED -> req.response().setStatusCode(429).putHeader("content-type", "application/json")
                            .putHeader("retry-after-ms", "200")
                            .end("{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\","
                                    + "\"code\":\"rate_limit_exceeded\"}}");
                    case OVERLOADED -> req.response().setStatusCode(503).putHeader("retry-after", "3600")
                            .putHeader("content-type", "application/json")
                            .end("{\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}");
                }
            });
        }).listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        for (int i = 0; i < 3; i++) {
            SluiceConfig config = ConfigLoader.parse(YAML.formatted(redis.uri(), provider.actualPort(), i),
                    "replica" + i + ".yaml", v -> null);
            replicas.add(ServeCommand.start(config, new PrintStream(errors, true, StandardCharsets.UTF_8))
                    .orElseThrow(() -> new AssertionError(errors.toString(StandardCharsets.UTF_8))));
        }
        // Every replica has published and read the others.
        awaitTrue(Duration.ofSeconds(5), () -> replicas.stream()
                .allMatch(r -> r.fleet().orElseThrow().lastReading().others().size() == 2));
    }

    @AfterEach
    void stop() throws Exception {
        for (ServeCommand.Serving r : replicas) {
            r.close();
        }
        if (provider != null) {
            provider.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void unevenlySpreadTrafficNeverTakesMoreThanTheOneSharedLimitAndEveryRequestIsAnswered() throws Exception {
        // 30 requests at once, 15, 10 and 5 on the three replicas, each allowed to wait 3 s: 120 a
        // minute is 2 a second with a burst of 2, so about 8 can be served and the rest must be
        // refused with a retry hint, by whichever replica they reached.
        long start = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        int[] spread = {15, 10, 5};
        for (int r = 0; r < 3; r++) {
            for (int i = 0; i < spread[r]; i++) {
                calls.add(send(r, "sk-fleet-batch", Map.of("x-sluice-deadline-ms", "3000")));
            }
        }
        int served = 0;
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            HttpResponse<String> resp = c.get(20, TimeUnit.SECONDS);
            if (resp.statusCode() == 200) {
                served++;
            } else {
                assertThat(resp.statusCode()).as(resp.body()).isEqualTo(429);
                assertThat(resp.headers().firstValue("retry-after")).as(resp.body()).isPresent();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        // The provider saw at most the burst plus the refill over the run, for all three together.
        assertThat(arrivals.size()).isEqualTo(served).isLessThanOrEqualTo((int) Math.ceil(2 + 2 * seconds));
        assertThat(served).isGreaterThanOrEqualTo(2);
    }

    @Test
    void oneReplicaSheddingLoadMakesEveryReplicaShedWithinOneSecond() throws Exception {
        answers.put("r0", Answer.LIMITED);
        AdaptiveController first = controller(0);
        // Fresh refusals on replica 0 only, one request after another, until it sheds load.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (first.mode() != Mode.LOAD_SHEDDING && System.nanoTime() < deadline) {
            send(0, "sk-fleet-batch", Map.of()).get(20, TimeUnit.SECONDS);
        }
        assertThat(first.mode()).isEqualTo(Mode.LOAD_SHEDDING);
        long shedding = System.nanoTime();

        awaitTrue(Duration.ofSeconds(1), () -> controller(1).modeInForce(now(1)) == Mode.LOAD_SHEDDING
                && controller(2).modeInForce(now(2)) == Mode.LOAD_SHEDDING);
        long agreed = System.nanoTime() - shedding;

        // Shedding refuses batch only while someone it protects is asking (AdaptiveController), and
        // that is the fleet's: an interactive caller on replica 0 alone protects on every replica.
        CompletableFuture<HttpResponse<String>> interactive = send(0, "sk-fleet-chat", Map.of());
        String zero = replicas.get(0).fleet().orElseThrow().own().replica();
        awaitTrue(Duration.ofSeconds(1), () -> {
            for (int r = 1; r < 3; r++) {
                var d = replicas.get(r).fleet().orElseThrow().lastReading().others().get(zero).deployments().get("d");
                if (d == null || d.protectedAskedAgoNanos() == dev.sluice.adapt.FleetAdaptive.NEVER) {
                    return false;
                }
            }
            return true;
        });
        for (int r = 1; r < 3; r++) {
            HttpResponse<String> resp = send(r, "sk-fleet-batch", Map.of()).get(10, TimeUnit.SECONDS);
            assertThat(resp.statusCode()).as(resp.body()).isNotEqualTo(200);
            assertThat(resp.body()).contains("load_shedding_non_critical");
            assertThat(controller(r).mode()).as("its own mode").isEqualTo(Mode.NORMAL);
        }
        interactive.get(20, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(agreed)).isLessThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void afterAnOverloadOneProbeGoesToTheProviderForTheWholeFleet() throws Exception {
        answers.put("r0", Answer.OVERLOADED);
        HttpResponse<String> refused = send(0, "sk-fleet-chat", Map.of("x-sluice-deadline-ms", "500"))
                .get(10, TimeUnit.SECONDS);
        assertThat(refused.statusCode()).as(refused.body()).isNotEqualTo(200);
        // The pause (fault_max, 1 s) ends and replica 0 probes; the others hear of it within an exchange.
        awaitTrue(Duration.ofSeconds(5), () -> controller(0).published("r0").probe()
                .map(p -> p.startsInNanos() == 0).orElse(false));
        answers.put("r0", Answer.OK);
        // Asked without a request, so that none is spent on the bucket while the word spreads.
        awaitTrue(Duration.ofSeconds(1), () -> probing(1) && probing(2));
        int before = arrivals.size();
        for (int r = 1; r < 3; r++) {
            HttpResponse<String> resp = send(r, "sk-fleet-chat", Map.of()).get(10, TimeUnit.SECONDS);
            assertThat(resp.body()).contains("deployment_probing");
        }

        // Replica 0 holds the probe: its request goes, is answered, and the fleet admits again.
        HttpResponse<String> probe = send(0, "sk-fleet-chat", Map.of()).get(10, TimeUnit.SECONDS);
        assertThat(probe.statusCode()).as(probe.body()).isEqualTo(200);
        assertThat(arrivals.size()).isEqualTo(before + 1);
        awaitTrue(Duration.ofSeconds(2), () -> {
            try {
                return send(1, "sk-fleet-chat", Map.of()).get(10, TimeUnit.SECONDS).statusCode() == 200;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    /** Whether {@code replica} would refuse an interactive request now because the fleet is being probed. */
    private boolean probing(int replica) {
        return controller(replica).screen(dev.sluice.governor.TrafficClass.INTERACTIVE, now(replica))
                .map(r -> r.code().equals("deployment_probing")).orElse(false);
    }

    private AdaptiveController controller(int replica) {
        return replicas.get(replica).gateway().adaptive().flatMap(a -> a.find("d")).orElseThrow();
    }

    private long now(int replica) {
        return replicas.get(replica).gateway().governor().clock().nanos();
    }

    private CompletableFuture<HttpResponse<String>> send(int replica, String key, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                URI.create(replicas.get(replica).gateway().baseUrl() + "/v1/chat/completions"))
                .header("authorization", "Bearer " + key).header("content-type", "application/json")
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"p\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}"));
        headers.forEach(b::header);
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
