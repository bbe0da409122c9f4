package dev.sluice.gateway.alert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.gateway.Gateway;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.runtime.alert.Alert;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The gateway's own alerts end to end: a provider that allows one request per ten seconds refuses
 * the next ones with 429s; one evaluation fires {@code provider_429_rate}, shown at
 * {@code /admin/alerts} and in {@code sluice_alerts_active}, and a webhook on 127.0.0.1 that fails
 * the first delivery receives it on the retry; the next quiet evaluation resolves it.
 */
class AlertsTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    static void eventually(BooleanSupplier condition) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < until) {
            CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)).join();
        }
    }

    static HttpResponse<String> get(Gateway g, String path, String token) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(g.admin().orElseThrow().baseUrl() + path))
                .header("authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void a429SpikeFiresIsShownAndReachesAWebhookThatFailedFirst() throws Exception {
        Vertx vertx = Vertx.vertx();
        List<String> received = new CopyOnWriteArrayList<>();
        AtomicInteger hits = new AtomicInteger();
        HttpServer receiver = await(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
                .requestHandler(req -> req.body().onSuccess(body -> {
                    if (hits.incrementAndGet() == 1) {
                        req.response().setStatusCode(500).end(); // the first delivery fails: it is tried again
                        return;
                    }
                    received.add(body.toString());
                    req.response().setStatusCode(204).end();
                })).listen());
        MockProviderServer provider = await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.OPENAI)
                .limits(ProviderLimits.builder().rpm(6).build()).build()));
        var config = ConfigLoader.parse("""
                server: { port: 0 }
                admin:
                  port: 0
                  tokens:
                    viewer: { scope: read, token: "sla-alerts-read" }
                    reseller: { scope: "partner:acme", token: "sla-alerts-partner" }
                deployments: { east: { kind: openai, base_url: "%s", limits: { rpm: 600 } } }
                profiles: { p: { deployment: east, model: gpt-4o-mini } }
                orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-alerts-k" } } } } } } } }
                alerts:
                  evaluate_every: 1h
                  provider_429_min_attempts: 2
                  webhook: { url: "http://127.0.0.1:%d/hooks/sluice", max_attempts: 3, backoff: 50ms }
                """.formatted(provider.baseUrl(), receiver.actualPort()), "alerts.yaml", v -> null);
        Gateway g = await(Gateway.builder(config).vertx(vertx).instances(1).adaptive(false).start());
        try {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                        .header("authorization", "Bearer sk-alerts-k").header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"model\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isIn(200, 429);
            }

            List<Alert.Change> changes = g.alerts().evaluate();
            assertThat(changes).singleElement().isInstanceOf(Alert.Fired.class);
            Alert a = changes.get(0).alert();
            assertThat(a.name()).isEqualTo("provider_429_rate");
            assertThat(a.scope()).isEqualTo("deployment:east");
            assertThat(a.value()).as("the provider refused at least one of the few attempts").isGreaterThan(0.05);

            JsonNode shown = JSON.readTree(get(g, "/admin/alerts", "sla-alerts-read").body());
            assertThat(shown.path("active")).hasSize(1);
            JsonNode first = shown.path("active").get(0);
            assertThat(first.path("name").asText()).isEqualTo("provider_429_rate");
            assertThat(first.path("severity").asText()).isEqualTo("warning");
            assertThat(first.path("threshold").asDouble()).isEqualTo(0.05);
            assertThat(first.path("sentence").asText()).startsWith("east: the provider refused ").endsWith(
                    "with a 429: its limits are lower than configured, or another client shares them.");
            assertThat(first.path("resolved_at").isNull()).isTrue();
            assertThat(get(g, "/admin/alerts", "sla-alerts-partner").statusCode()).isEqualTo(403);
            assertThat(get(g, "/metrics", "sla-alerts-read").body())
                    .contains("sluice_alerts_active{name=\"provider_429_rate\",scope=\"deployment:east\",severity=\"warning\"} 1.0");

            eventually(() -> received.size() >= 1);
            assertThat(hits.get()).as("one failure, then the retry").isEqualTo(2);
            JsonNode note = JSON.readTree(received.get(0));
            assertThat(note.path("status").asText()).isEqualTo("firing");
            assertThat(note.path("alert").path("name").asText()).isEqualTo("provider_429_rate");
            assertThat(received.get(0)).doesNotContain("sk-alerts-k");

            assertThat(g.alerts().evaluate()).as("no attempts since: it resolves").singleElement()
                    .isInstanceOf(Alert.Resolved.class);
            eventually(() -> received.size() >= 2);
            assertThat(JSON.readTree(received.get(1)).path("status").asText()).isEqualTo("resolved");
            JsonNode after = JSON.readTree(get(g, "/admin/alerts", "sla-alerts-read").body());
            assertThat(after.path("active")).isEmpty();
            assertThat(after.path("recent").get(0).path("resolved_at").isNull()).isFalse();
            assertThat(g.alerts().webhook().orElseThrow().delivered()).isEqualTo(2);
        } finally {
            await(g.stop());
            await(provider.close());
            await(receiver.close());
            await(vertx.close());
        }
    }
}
