package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.gateway.metrics.Scrape;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.runtime.config.AdminSettings;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code GET /metrics} on the admin listener: who may scrape it, and what a served request adds. */
class MetricsRouteTest {

    static Vertx vertx;
    static MockProviderServer openai;
    static Gateway guarded;
    static Gateway open;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static SluiceConfig config(String baseUrl) {
        return ConfigLoader.parse("""
                server: { port: 0 }
                admin:
                  port: 0
                  tokens:
                    ops: { scope: admin, token: "sla-test-admin" }
                    viewer: { scope: read, token: "sla-test-read" }
                    reseller: { scope: "partner:acme", token: "sla-test-partner" }
                deployments: { east: { kind: openai, base_url: "%s", limits: { rpm: 600 } } }
                profiles: { chat: { deployment: east, model: gpt-4o-mini } }
                orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-client-key" } } } } } } } }
                """.formatted(baseUrl), "metrics.yaml", v -> null);
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        openai = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)));
        SluiceConfig c = config(openai.baseUrl());
        guarded = await(Gateway.builder(c).vertx(vertx).instances(1).start());
        open = await(Gateway.builder(c.withAdmin(c.admin().orElseThrow().withMetricsAuth(AdminSettings.MetricsAuth.NONE)))
                .vertx(vertx).instances(1).start());
    }

    @AfterAll
    static void stop() throws Exception {
        await(guarded.stop());
        await(open.stop());
        await(openai.close());
        await(vertx.close());
    }

    static HttpResponse<String> scrape(Gateway g, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(g.admin().orElseThrow().baseUrl() + "/metrics"));
        if (token != null) {
            b.header("authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void byDefaultAScrapeNeedsAnAdminToken() throws Exception {
        assertThat(scrape(guarded, null).statusCode()).isEqualTo(401);
        assertThat(scrape(guarded, "sk-client-key").statusCode()).as("a client key is not a token").isEqualTo(401);
        HttpResponse<String> ok = scrape(guarded, "sla-test-read");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(ok.body()).contains("# TYPE sluice_requests_in_flight gauge");
    }

    @Test
    void aPartnerTokenCannotReadEveryTenantsMetrics() throws Exception {
        HttpResponse<String> r = scrape(guarded, "sla-test-partner");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("scope_forbids").contains("reseller");
    }

    @Test
    void withMetricsAuthNoneAnyoneMayScrape() throws Exception {
        assertThat(scrape(open, null).statusCode()).isEqualTo(200);
        assertThat(open.admin().orElseThrow().router()).isNotNull();
    }

    @Test
    void theMetricsAreNeverOnTheClientPort() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(guarded.baseUrl() + "/metrics"))
                .header("authorization", "Bearer sla-test-read").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(404);
    }

    @Test
    void aServedRequestShowsInTheScrapeWithItsBucketsAndNoSecret() throws Exception {
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create(guarded.baseUrl()
                + "/v1/chat/completions")).header("authorization", "Bearer sk-client-key")
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"chat\",\"messages\":[{\"role\":\"user\","
                        + "\"content\":\"hello\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
        // The answer leaves before the request's event: scrape until the event has been counted (its last meter).
        String text = scrape(guarded, "sla-test-admin").body();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (new Scrape(text).sum("sluice_requests_total", "profile", "chat") == 0 && System.nanoTime() < deadline) {
            text = scrape(guarded, "sla-test-admin").body();
        }
        Scrape s = new Scrape(text);
        assertThat(s.sum("sluice_requests_total", "profile", "chat", "tenant", "acme", "status", "200")).isEqualTo(1);
        assertThat(s.value("gen_ai_client_operation_duration_seconds_count", "gen_ai_provider_name", "openai",
                "gen_ai_request_model", "gpt-4o-mini", "gen_ai_operation_name", "chat")).hasValue(1);
        // 600 rpm at a deployment bursts one second's worth at most: 10.
        assertThat(s.value("sluice_bucket_capacity", "scope", "deployment:east", "dimension", "rpm")).hasValue(10);
        assertThat(s.value("sluice_queue_depth", "deployment", "east", "class", "interactive")).hasValue(0);
        assertThat(s.value("sluice_deployment_mode", "deployment", "east", "mode", "normal")).hasValue(1);
        assertThat(text).doesNotContain("sk-client-key").doesNotContain("sla-test");
    }
}
