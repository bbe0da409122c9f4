package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.redis.ReplicasOnRedis;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two replicas with a SQLite ledger each and one redis-server of the test's own
 * ({@link ReplicasOnRedis}), wired as {@code sluice serve} wires them: a key created and a tenant paused through one replica's admin API answer on the
 * other's client port once its relay has imported them, and a profile's changed fallback policy
 * holds there too.
 */
class TwoReplicasOnRedisTest {

    private static final Duration EVERY = Duration.ofMillis(250);

    @TempDir
    Path dir;

    @RegisterExtension
    final ReplicasOnRedis redis = new ReplicasOnRedis();

    /** A replica and its change relay. */
    private record Replica(Gateway gateway, ReplicasOnRedis.Relay relay) {}

    @Test
    void aKeyAPauseAndPricesMadeOnOneReplicaAnswerOnTheOther() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            Replica a = start(vertx, "a.db");
            Replica b = start(vertx, "b.db");

            HttpResponse<String> created = AdminCalls.admin(a.gateway(), "POST", "/admin/keys", "sla-relay-admin",
                    "{\"id\":\"k2\",\"tenant\":\"acme\",\"team\":\"x\",\"profiles\":[\"p\"]}");
            assertThat(created.statusCode()).isEqualTo(201);
            String secret = AdminCalls.json(created).path("secret").asText();
            b.relay().awaitImport(() -> b.gateway().runtime().config().keys().stream().anyMatch(k -> k.id().equals("k2")));
            // Opens the other replica's client port (the deployment itself is unreachable here).
            assertThat(AdminCalls.chat(b.gateway(), secret).statusCode()).isNotEqualTo(401);

            assertThat(AdminCalls.admin(a.gateway(), "POST", "/admin/pauses", "sla-relay-admin",
                    "{\"scope\":\"tenant:acme\",\"reason\":\"incident 7\"}").statusCode()).isEqualTo(201);
            b.relay().awaitImport(() -> !b.gateway().runtime().pauses().list(System.currentTimeMillis()).isEmpty());
            HttpResponse<String> refused = AdminCalls.chat(b.gateway(), secret);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("x-should-retry")).hasValue("false");
            assertThat(refused.body()).contains("incident 7");

            // A new price table reaches the other replica's admissions within the relay's interval.
            assertThat(AdminCalls.admin(a.gateway(), "PUT", "/admin/prices", "sla-relay-admin",
                    "{\"prices\":{\"gpt-4o-mini\":{\"input\":0.15,\"output\":0.60}}}").statusCode()).isEqualTo(200);
            b.relay().awaitImport(() -> !b.gateway().runtime().config().prices().byName().isEmpty());
            assertThat(b.gateway().runtime().config().prices().of("d", "gpt-4o-mini"))
                    .isEqualTo(new dev.sluice.runtime.config.Price(0.15, 0.60, 0.15));

            assertThat(AdminCalls.admin(a.gateway(), "PATCH", "/admin/profiles/p", "sla-relay-admin",
                    "{\"fallback\":{\"same_region\":true,\"max_cost_ratio\":2}}").statusCode()).isEqualTo(200);
            b.relay().awaitImport(() -> b.gateway().config().profiles().get("p").fallback().sameRegion());
            assertThat(b.gateway().config().profiles().get("p").fallback().maxCostRatio()).isEqualTo(2.0);

            AdminCalls.stop(a.gateway());
            AdminCalls.stop(b.gateway());
        } finally {
            AdminCalls.close(vertx);
        }
    }

    private Replica start(Vertx vertx, String ledger) throws Exception {
        SluiceConfig config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-relay-admin" } } }
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-relay-k" } } } } } } } }
                """, "relay.yaml", v -> null).withLedger(LedgerSettings.sqlite(dir.resolve(ledger)));
        ReplicasOnRedis.Relay relay = redis.relay(redis.store(), LedgerJournal.open(config.ledger()), EVERY);
        Gateway g = AdminCalls.start(vertx, config, relay.relay());
        relay.onImport(() -> g.control().sync());
        return new Replica(g, relay);
    }

}
