package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.control.ControlPlane;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change made on one replica reaches another that shares the journal (the ledger's database):
 * each looks every {@link ControlPlane#SYNC_INTERVAL}; here the second one's look is also called
 * directly, so the test waits for nothing.
 */
class TwoReplicasTest {

    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void aReplicaLooksForOthersChangesWellWithinASecond() {
        assertThat(ControlPlane.SYNC_INTERVAL).isLessThanOrEqualTo(Duration.ofMillis(500));
    }

    @Test
    void aChangeOnOneReplicaIsInForceOnTheOtherAfterItsNextLook() throws Exception {
        SluiceConfig config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-two-admin" } } }
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-two-k" } } } } } } } }
                """, "two.yaml", v -> null).withLedger(LedgerSettings.sqlite(dir.resolve("shared.db")));
        Vertx vertx = Vertx.vertx();
        try {
            Gateway a = start(vertx, config);
            Gateway b = start(vertx, config);
            assertThat(call(a, "PATCH", "/admin/tenants/acme", "{\"weight\":6}").statusCode()).isEqualTo(200);
            assertThat(call(a, "POST", "/admin/pauses", "{\"scope\":\"key:k\",\"reason\":\"both\"}").statusCode())
                    .isEqualTo(201);
            // Its own timer may have looked already; either way, after this look the changes are in force.
            b.control().sync();
            assertThat(b.governor().config().settings(Scope.of(ScopeLevel.TENANT, "acme")).weight()).isEqualTo(6.0);
            HttpResponse<String> refused = HTTP.send(HttpRequest.newBuilder(URI.create(b.baseUrl() + "/v1/chat/completions"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                    .header("authorization", "Bearer sk-two-k").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("both");
            assertThat(b.control().sync()).isFalse();
            // The replica that made the changes has them already: nothing new to look at.
            assertThat(a.control().sync()).isFalse();
            a.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
            b.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    private static Gateway start(Vertx vertx, SluiceConfig config) throws Exception {
        return Gateway.builder(config).vertx(vertx).instances(1).adaptive(false)
                .journal(LedgerJournal.open(config.ledger())).start().toCompletionStage().toCompletableFuture()
                .get(20, TimeUnit.SECONDS);
    }

    private static HttpResponse<String> call(Gateway g, String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(g.admin().orElseThrow().baseUrl() + path))
                .method(method, HttpRequest.BodyPublishers.ofString(body))
                .header("authorization", "Bearer sla-two-admin").build(), HttpResponse.BodyHandlers.ofString());
    }
}
