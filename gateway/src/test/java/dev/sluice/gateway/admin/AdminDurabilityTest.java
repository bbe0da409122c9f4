package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changes made through the admin API survive a restart: kept in the ledger's database (SQLite,
 * PostgreSQL) and replayed over the file, which stays the seed for everything else.
 */
class AdminDurabilityTest {

    static final String YAML = """
            server: { port: 0 }
            admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-durable-admin" } } }
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 100 } } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs: { o: { tenants: { acme: { weight: 1, teams: { x: { keys: { k: { secret: "sk-durable-k" } } } } } } } }
            """;
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @TempDir
    Path dir;

    @Test
    void onSqlite() throws Exception {
        survivesARestart(LedgerSettings.sqlite(dir.resolve("ledger.db")));
    }

    @Test
    void onPostgres() throws Exception {
        byte[] r = new byte[6];
        ThreadLocalRandom.current().nextBytes(r);
        String schema = "admin_test_" + HexFormat.of().formatHex(r);
        try {
            survivesARestart(LedgerSettings.postgres(PG, schema));
        } finally {
            try (Connection c = DriverManager.getConnection(PG); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    private void survivesARestart(LedgerSettings ledger) throws Exception {
        SluiceConfig config = ConfigLoader.parse(YAML, "durable.yaml", v -> null).withLedger(ledger);
        Vertx vertx = Vertx.vertx();
        try {
            Gateway first = start(vertx, config);
            call(first, "PATCH", "/admin/tenants/acme", "{\"weight\":4,\"limits\":{\"rpm\":30}}");
            call(first, "POST", "/admin/tenants/acme/teams", "{\"name\":\"web\"}");
            String secret = json(call(first, "POST", "/admin/keys", "{\"id\":\"k9\",\"tenant\":\"acme\",\"team\":\"web\"}"))
                    .path("secret").asText();
            call(first, "POST", "/admin/pauses", "{\"scope\":\"key:k9\",\"reason\":\"kept\"}");
            call(first, "DELETE", "/admin/keys/k", null);
            stop(first);

            Gateway second = start(vertx, config);
            var tenant = second.governor().config().settings(Scope.of(ScopeLevel.TENANT, "acme"));
            assertThat(tenant.weight()).isEqualTo(4.0);
            assertThat(tenant.limits().get(Dimension.REQUESTS).orElseThrow().amount()).isEqualTo(30);
            HttpResponse<String> refused = chat(second, secret);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("kept");
            assertThat(chat(second, "sk-durable-k").statusCode()).isEqualTo(401);
            JsonNode audit = json(call(second, "GET", "/admin/audit", null)).path("items");
            assertThat(audit.size()).isEqualTo(5);
            assertThat(audit.get(0).path("action").asText()).isEqualTo("key.delete");
            assertThat(audit.get(4).path("action").asText()).isEqualTo("tenant.update");
            assertThat(audit.toString()).doesNotContain("sha256").doesNotContain(secret);
            stop(second);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    private static Gateway start(Vertx vertx, SluiceConfig config) throws Exception {
        return Gateway.builder(config).vertx(vertx).instances(1).adaptive(false)
                .journal(LedgerJournal.open(config.ledger())).start().toCompletionStage().toCompletableFuture()
                .get(20, TimeUnit.SECONDS);
    }

    private static void stop(Gateway g) throws Exception {
        g.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static HttpResponse<String> call(Gateway g, String method, String path, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(g.admin().orElseThrow().baseUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("authorization", "Bearer sla-durable-admin").build();
        HttpResponse<String> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
        assertThat(resp.statusCode()).as(method + " " + path + ": " + resp.body()).isLessThan(300);
        return resp;
    }

    private static HttpResponse<String> chat(Gateway g, String key) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .header("authorization", "Bearer " + key).build();
        return HTTP.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }
}
