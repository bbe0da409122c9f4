package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.redis.RedisChangeRelay;
import dev.sluice.store.redis.RedisQuotaStore;
import dev.sluice.store.redis.RedisStoreConfig;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two replicas with a SQLite ledger each and one Redis namespace, wired as {@code sluice serve}
 * wires them: a key created and a tenant paused through one replica's admin API answer on the
 * other's client port once its relay has imported them, and a profile's changed fallback policy
 * holds there too.
 */
class TwoReplicasOnRedisTest {

    private static final Duration EVERY = Duration.ofMillis(250);

    @TempDir
    Path dir;

    private final String ns = "sluice-relay-e2e-" + UUID.randomUUID();
    private final List<AutoCloseable> open = new ArrayList<>();

    /** A replica and a signal per import of its relay. */
    private record Replica(Gateway gateway, LinkedBlockingQueue<Boolean> imported) {}

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
            awaitImport(b, () -> b.gateway().runtime().config().keys().stream().anyMatch(k -> k.id().equals("k2")));
            // Opens the other replica's client port (the deployment itself is unreachable here).
            assertThat(AdminCalls.chat(b.gateway(), secret).statusCode()).isNotEqualTo(401);

            assertThat(AdminCalls.admin(a.gateway(), "POST", "/admin/pauses", "sla-relay-admin",
                    "{\"scope\":\"tenant:acme\",\"reason\":\"incident 7\"}").statusCode()).isEqualTo(201);
            awaitImport(b, () -> !b.gateway().runtime().pauses().list(System.currentTimeMillis()).isEmpty());
            HttpResponse<String> refused = AdminCalls.chat(b.gateway(), secret);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("x-should-retry")).hasValue("false");
            assertThat(refused.body()).contains("incident 7");

            // A new price table reaches the other replica's admissions within the relay's interval.
            assertThat(AdminCalls.admin(a.gateway(), "PUT", "/admin/prices", "sla-relay-admin",
                    "{\"prices\":{\"gpt-4o-mini\":{\"input\":0.15,\"output\":0.60}}}").statusCode()).isEqualTo(200);
            awaitImport(b, () -> !b.gateway().runtime().config().prices().byName().isEmpty());
            assertThat(b.gateway().runtime().config().prices().of("d", "gpt-4o-mini"))
                    .isEqualTo(new dev.sluice.runtime.config.Price(0.15, 0.60, 0.15));

            assertThat(AdminCalls.admin(a.gateway(), "PATCH", "/admin/profiles/p", "sla-relay-admin",
                    "{\"fallback\":{\"same_region\":true,\"max_cost_ratio\":2}}").statusCode()).isEqualTo(200);
            awaitImport(b, () -> b.gateway().config().profiles().get("p").fallback().sameRegion());
            assertThat(b.gateway().config().profiles().get("p").fallback().maxCostRatio()).isEqualTo(2.0);

            AdminCalls.stop(a.gateway());
            AdminCalls.stop(b.gateway());
        } finally {
            for (AutoCloseable c : open.reversed()) {
                c.close();
            }
            AdminCalls.close(vertx);
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379");
            try (var c = client.connect()) {
                List<String> keys = c.sync().keys(ns + ":*");
                if (!keys.isEmpty()) {
                    c.sync().del(keys.toArray(String[]::new));
                }
            } finally {
                client.shutdown();
            }
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
        RedisQuotaStore redis = RedisQuotaStore.connect("redis://127.0.0.1:6379",
                RedisStoreConfig.builder().namespace(ns).build());
        open.add(redis);
        RedisChangeRelay relay = RedisChangeRelay.start(redis, LedgerJournal.open(config.ledger()), EVERY);
        open.add(relay);
        Gateway g = AdminCalls.start(vertx, config, relay);
        LinkedBlockingQueue<Boolean> imported = new LinkedBlockingQueue<>();
        relay.whenImported(() -> {
            g.control().sync();
            imported.add(true);
        });
        return new Replica(g, imported);
    }

    /** Waits for the replica's relay to import until {@code condition} holds, at most five seconds. */
    private static void awaitImport(Replica r, BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            long left = until - System.nanoTime();
            assertThat(left).as("imported in time").isPositive();
            r.imported().poll(left, TimeUnit.NANOSECONDS);
        }
    }
}
