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
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change made on one replica reaches another that shares the journal (the ledger's database):
 * each looks every {@link ControlPlane#SYNC_INTERVAL}; here the second one's look is also called
 * directly, so the test waits for nothing.
 */
class TwoReplicasTest {

    @TempDir
    Path dir;

    @Test
    void aReplicaLooksForOthersChangesWellWithinASecond() {
        assertThat(ControlPlane.SYNC_INTERVAL).isLessThanOrEqualTo(Duration.ofMillis(500));
    }

    @Test
    void aChangeOnOneReplicaIsInForceOnTheOtherAfterItsNextLook() throws Exception {
        SluiceConfig config = config("shared.db");
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
            HttpResponse<String> refused = AdminCalls.chat(b, "sk-two-k");
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("both");
            assertThat(b.control().sync()).isFalse();
            // The replica that made the changes has them already: nothing new to look at.
            assertThat(a.control().sync()).isFalse();
            AdminCalls.stop(a);
            AdminCalls.stop(b);
        } finally {
            AdminCalls.close(vertx);
        }
    }

    @Test
    void aProfilesRoutingChangedOnOneReplicaIsInForceOnTheOtherAndAfterARestart() throws Exception {
        SluiceConfig config = config("profiles.db");
        Vertx vertx = Vertx.vertx();
        try {
            Gateway a = start(vertx, config);
            Gateway b = start(vertx, config);
            assertThat(call(a, "PATCH", "/admin/profiles/p", "{\"deployments\":[\"e\",\"d\"]}").statusCode())
                    .isEqualTo(200);

            b.control().sync();

            assertThat(b.config().profiles().get("p").deployment()).isEqualTo("e");
            assertThat(AdminCalls.json(call(b, "GET", "/admin/profiles/p", null)).path("deployments")
                    .findValuesAsText("deployment")).containsExactly("e", "d");
            AdminCalls.stop(a);
            AdminCalls.stop(b);
            Gateway restarted = start(vertx, config);
            assertThat(restarted.config().profiles().get("p").deployment()).isEqualTo("e");
            AdminCalls.stop(restarted);
        } finally {
            AdminCalls.close(vertx);
        }
    }

    /** Two replicas' configuration, with the ledger (and so the journal) they share in {@code db}. */
    private SluiceConfig config(String db) {
        return ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-two-admin" } } }
                deployments:
                  d: { kind: openai, base_url: "http://127.0.0.1:1" }
                  e: { kind: openai, base_url: "http://127.0.0.1:2" }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-two-k" } } } } } } } }
                """, "two.yaml", v -> null).withLedger(LedgerSettings.sqlite(dir.resolve(db)));
    }

    private static Gateway start(Vertx vertx, SluiceConfig config) throws Exception {
        return AdminCalls.start(vertx, config, LedgerJournal.open(config.ledger()));
    }

    private static HttpResponse<String> call(Gateway g, String method, String path, String body) throws Exception {
        return AdminCalls.admin(g, method, path, "sla-two-admin", body);
    }
}
