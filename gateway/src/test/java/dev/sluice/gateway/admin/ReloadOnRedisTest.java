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
import java.nio.file.Files;
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
 * A reload through one replica's admin API reaches the other through the Redis change relay, as
 * every change does: the other reloads its own file, by the same rules, and a deployment the file
 * adds serves there too.
 */
class ReloadOnRedisTest {

    private static final Duration EVERY = Duration.ofMillis(250);
    private static final String YAML = """
            server: { port: 0 }
            admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-reload-relay" } } }
            deployments:
              d: { kind: openai, base_url: "http://127.0.0.1:1" }
            %s
            profiles: { p: { deployment: %s, model: gpt-4o-mini } }
            orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-reload-relay" } } } } } } } }
            """;

    @TempDir
    Path dir;

    private final String ns = "sluice-reload-e2e-" + UUID.randomUUID();
    private final List<AutoCloseable> open = new ArrayList<>();

    private record Replica(Gateway gateway, Path file, LinkedBlockingQueue<Boolean> imported) {}

    @Test
    void aReloadThroughOneReplicaReloadsTheOthersOwnFile() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            Replica a = start(vertx, "a");
            Replica b = start(vertx, "b");
            String added = YAML.formatted("  e: { kind: openai, base_url: \"http://127.0.0.1:2\", limits: { rpm: 50 } }", "e");
            Files.writeString(a.file(), added);
            Files.writeString(b.file(), added);

            HttpResponse<String> r = AdminCalls.admin(a.gateway(), "POST", "/admin/reload", "sla-reload-relay", null);

            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(a.gateway().runtime().config().deployments()).containsKeys("d", "e");
            awaitImport(b, () -> b.gateway().runtime().config().deployments().containsKey("e"));
            assertThat(b.gateway().runtime().config().profiles().get("p").deployment()).isEqualTo("e");
            assertThat(b.gateway().runtime().deployments().version("e")).isPresent();
            assertThat(b.gateway().control().peerReloadRefused()).isEmpty();
            assertThat(AdminCalls.admin(b.gateway(), "GET", "/admin/audit?limit=5", "sla-reload-relay", null).body())
                    .as("written once, by the replica that reloaded").containsOnlyOnce("config.reload");

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

    private Replica start(Vertx vertx, String name) throws Exception {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, YAML.formatted("", "d"));
        SluiceConfig config = ConfigLoader.load(file).withLedger(LedgerSettings.sqlite(dir.resolve(name + ".db")));
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
        return new Replica(g, file, imported);
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
