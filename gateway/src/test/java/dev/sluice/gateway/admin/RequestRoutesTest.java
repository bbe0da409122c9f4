package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.Ledger;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /admin/requests/recent} and {@code /admin/explain/{trace_id}} through real HTTP: a tenant
 * allowed one request a minute sends two; the second is refused at once, listed as rejected and
 * explained by the tenant's rpm bucket; a partner of another tenant sees neither; after a restart
 * the explanation comes from the ledger.
 */
class RequestRoutesTest {

    static Vertx vertx;
    static MockProviderServer openai;

    static final String YAML = """
            server: { port: 0 }
            admin:
              port: 0
              tokens:
                ops: { scope: admin, token: "sla-explain-admin" }
                viewer: { scope: read, token: "sla-explain-read" }
                other: { scope: "partner:globex", token: "sla-explain-other" }
                own: { scope: "partner:acme", token: "sla-explain-own" }
            deployments: { east: { kind: openai, base_url: "%s", limits: { rpm: 600 } } }
            profiles: { p: { deployment: east, model: gpt-4o-mini } }
            orgs:
              o:
                tenants:
                  acme: { limits: { rpm: 1 }, teams: { x: { keys: { k: { secret: "sk-explain-k" } } } } }
                  globex: { teams: { y: { keys: { g: { secret: "sk-explain-g" } } } } }
            """;

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        openai = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)));
    }

    @AfterAll
    static void stop() throws Exception {
        await(openai.close());
        AdminCalls.close(vertx);
    }

    static SluiceConfig config() {
        return ConfigLoader.parse(YAML.formatted(openai.baseUrl()), "explain.yaml", v -> null);
    }

    /** The recent list once it holds {@code n} requests: each is recorded just after its answer has gone. */
    static JsonNode recent(Gateway g, String query, String token, int n) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            JsonNode r = AdminCalls.json(AdminCalls.admin(g, "GET", "/admin/requests/recent" + query, token, null));
            if (r.path("items").size() >= n || System.nanoTime() > until) {
                return r;
            }
            // Poll every 20 ms: a tight loop would spend the admin listener's rate limit.
            java.util.concurrent.CompletableFuture.runAsync(() -> {},
                    java.util.concurrent.CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)).join();
        }
    }

    @Test
    void aRefusalIsListedAndExplainedByTheBucketThatDecided() throws Exception {
        Gateway g = AdminCalls.start(vertx, config());
        try {
            HttpResponse<String> first = AdminCalls.chat(g, "sk-explain-k");
            HttpResponse<String> second = AdminCalls.chat(g, "sk-explain-k");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(second.statusCode()).isEqualTo(429);
            String refused = second.headers().firstValue("x-sluice-trace-id").orElseThrow();

            JsonNode all = recent(g, "", "sla-explain-read", 2);
            assertThat(all.path("items")).hasSize(2);
            assertThat(all.path("items").get(0).path("trace_id").asText()).as("newest first").isEqualTo(refused);
            JsonNode rejected = recent(g, "?status=rejected&limit=10", "sla-explain-read", 1);
            assertThat(rejected.path("items")).hasSize(1);
            JsonNode line = rejected.path("items").get(0);
            assertThat(line.path("tenant").asText()).isEqualTo("acme");
            assertThat(line.path("team").asText()).as("a team's id names its tenant").isEqualTo("acme/x");
            assertThat(line.path("key_id").asText()).isEqualTo("k");
            assertThat(line.path("profile").asText()).isEqualTo("p");
            assertThat(line.path("class").asText()).isEqualTo("interactive");
            assertThat(line.path("status").asInt()).isEqualTo(429);
            assertThat(line.path("gateway_decision").asText()).isEqualTo("rejected_locally");
            assertThat(line.path("reason").asText()).isEqualTo("refused: tenant:acme rpm [tenant_rpm_exhausted]");
            assertThat(line.toString()).doesNotContain("sk-explain-k");

            HttpResponse<String> r = AdminCalls.admin(g, "GET", "/admin/explain/" + refused, "sla-explain-read", null);
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode e = AdminCalls.json(r);
            assertThat(e.path("source").asText()).isEqualTo("memory");
            assertThat(e.path("decided_by").path("scope").asText()).isEqualTo("tenant:acme");
            assertThat(e.path("decided_by").path("dimension").asText()).isEqualTo("rpm");
            assertThat(e.path("queue").path("wait_ms").asLong()).isZero();
            assertThat(e.path("queue").path("budget_ms").asLong()).isEqualTo(300);
            assertThat(e.path("queue").path("bound_by").asText()).isEqualTo("class");
            assertThat(e.path("involved").path("retries").asInt()).isZero();
            assertThat(e.path("involved").path("fallback").asBoolean()).isFalse();
            assertThat(e.path("attempts")).isEmpty();
            assertThat(e.path("sentence").asText()).startsWith("This interactive request from acme/x (key k) for p "
                    + "was refused at once because tenant:acme had too little rpm (a wait of ");
            assertThat(e.path("sentence").asText()).contains("ms predicted, 300 ms allowed by its class).");
        } finally {
            AdminCalls.stop(g);
        }
    }

    @Test
    void aPartnerSeesOnlyItsOwnSubtreesRequests() throws Exception {
        Gateway g = AdminCalls.start(vertx, config());
        try {
            HttpResponse<String> mine = AdminCalls.chat(g, "sk-explain-k");
            String trace = mine.headers().firstValue("x-sluice-trace-id").orElseThrow();
            assertThat(recent(g, "", "sla-explain-own", 1).path("items")).hasSize(1);
            assertThat(recent(g, "", "sla-explain-other", 0).path("items")).isEmpty();
            HttpResponse<String> hidden = AdminCalls.admin(g, "GET", "/admin/explain/" + trace, "sla-explain-other", null);
            assertThat(hidden.statusCode()).as("another tenant's request is as unknown").isEqualTo(404);
            assertThat(AdminCalls.json(hidden).path("error").path("code").asText()).isEqualTo("unknown_trace");
            assertThat(AdminCalls.admin(g, "GET", "/admin/explain/" + trace, "sla-explain-own", null).statusCode())
                    .isEqualTo(200);
        } finally {
            AdminCalls.stop(g);
        }
    }

    @Test
    void anUnknownTraceOrABadQueryIsAnErrorInTheAdminShape() throws Exception {
        Gateway g = AdminCalls.start(vertx, config());
        try {
            HttpResponse<String> unknown = AdminCalls.admin(g, "GET", "/admin/explain/0af7651916cd43dd8448eb211c80319c",
                    "sla-explain-admin", null);
            assertThat(unknown.statusCode()).isEqualTo(404);
            JsonNode err = AdminCalls.json(unknown).path("error");
            assertThat(err.path("type").asText()).isEqualTo("not_found");
            assertThat(err.path("field").asText()).isEqualTo("trace_id");
            HttpResponse<String> bad = AdminCalls.admin(g, "GET", "/admin/requests/recent?status=late", "sla-explain-admin",
                    null);
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(AdminCalls.json(bad).path("error").path("field").asText()).isEqualTo("status");
            HttpResponse<String> tooMany = AdminCalls.admin(g, "GET", "/admin/requests/recent?limit=501",
                    "sla-explain-admin", null);
            assertThat(AdminCalls.json(tooMany).path("error").path("message").asText())
                    .isEqualTo("limit: 501 (expected: 1 to 500)");
            assertThat(AdminCalls.admin(g, "GET", "/admin/requests/recent", null, null).statusCode()).isEqualTo(401);
        } finally {
            AdminCalls.stop(g);
        }
    }

    @Test
    void aRequestNoLongerInMemoryIsExplainedFromTheLedger(@TempDir Path dir) throws Exception {
        SluiceConfig c = config().withLedger(LedgerSettings.sqlite(dir.resolve("ledger.db")));
        Gateway before = await(Gateway.builder(c).vertx(vertx).instances(1).adaptive(false).ledger(Ledger.open(c.ledger()))
                .start());
        String refused;
        try {
            AdminCalls.chat(before, "sk-explain-k");
            refused = AdminCalls.chat(before, "sk-explain-k").headers().firstValue("x-sluice-trace-id").orElseThrow();
        } finally {
            AdminCalls.stop(before); // the ledger writes what it holds before it stops
        }
        Gateway after = await(Gateway.builder(c).vertx(vertx).instances(1).adaptive(false).ledger(Ledger.open(c.ledger()))
                .start());
        try {
            HttpResponse<String> r = AdminCalls.admin(after, "GET", "/admin/explain/" + refused, "sla-explain-read", null);
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode e = AdminCalls.json(r);
            assertThat(e.path("source").asText()).isEqualTo("ledger");
            assertThat(e.path("decided_by").path("scope").asText()).isEqualTo("tenant:acme");
            assertThat(e.path("queue").path("budget_ms").asLong()).isEqualTo(300);
            assertThat(e.path("queue").path("bound_by").asText()).isEqualTo("class");
            assertThat(e.path("key_id").asText()).isEqualTo("k");
            assertThat(e.path("sentence").asText()).contains("was refused at once because tenant:acme had too little rpm");
            // With a time given, the ledger looks within 10 minutes of it only.
            String now = java.time.Instant.now().toString();
            assertThat(AdminCalls.admin(after, "GET", "/admin/explain/" + refused + "?at=" + now, "sla-explain-read", null)
                    .statusCode()).isEqualTo(200);
            HttpResponse<String> elsewhen = AdminCalls.admin(after, "GET", "/admin/explain/" + refused
                    + "?at=2026-01-01T00:00:00Z", "sla-explain-read", null);
            assertThat(elsewhen.statusCode()).isEqualTo(404);
            assertThat(AdminCalls.json(elsewhen).path("error").path("code").asText()).isEqualTo("unknown_trace");
            HttpResponse<String> bad = AdminCalls.admin(after, "GET", "/admin/explain/" + refused + "?at=yesterday",
                    "sla-explain-read", null);
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(AdminCalls.json(bad).path("error").path("field").asText()).isEqualTo("at");
        } finally {
            AdminCalls.stop(after);
        }
    }
}
