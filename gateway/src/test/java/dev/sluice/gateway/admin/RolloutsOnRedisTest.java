package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.rollout.Rollout;
import dev.sluice.runtime.rollout.RolloutView;
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
 * A rollout's definition, stage, history and decisions shared by two replicas (a SQLite ledger
 * each, one Redis namespace of their own, wired as {@code sluice serve} wires them) and read back
 * by a replica that restarts on its ledger.
 */
class RolloutsOnRedisTest {

    private static final Duration EVERY = Duration.ofMillis(250);
    private static final String ADMIN = "sla-rollout-relay";

    @TempDir
    Path dir;

    private final String ns = "sluice-rollout-e2e-" + UUID.randomUUID();
    private final List<AutoCloseable> open = new ArrayList<>();

    private record Replica(Gateway gateway, LinkedBlockingQueue<Boolean> imported) {}

    @Test
    void aRolloutMadeAndMovedOnOneReplicaStandsOnTheOtherAndAfterARestart() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            Replica a = start(vertx, "a.db");
            Replica b = start(vertx, "b.db");

            call(a, "POST", "/admin/rollouts", "{\"id\":\"move\",\"profile\":\"p\",\"to\":\"new\",\"steps\":[10,50,100],"
                    + "\"interval\":\"1h\"}", 201);
            call(a, "POST", "/admin/rollouts/move/start", null, 200);
            call(a, "POST", "/admin/rollouts/move/advance", null, 200);
            awaitImport(b, () -> stageOn(b) == 1);
            RolloutView there = b.gateway().runtime().rollouts().inspect("move");
            assertThat(there.status()).isEqualTo(Rollout.Status.RUNNING);
            assertThat(there.percent()).isEqualTo(50);
            assertThat(there.history()).isEqualTo(a.gateway().runtime().rollouts().inspect("move").history());

            // The emergency rollback on the other replica returns the first one's traffic too.
            JsonNode back = call(b, "POST", "/admin/rollouts/move/rollback", "{\"reason\":\"answers look wrong\"}", 200);
            assertThat(back.path("rollout").path("status").asText()).isEqualTo("rolled_back");
            awaitImport(a, () -> a.gateway().runtime().rollouts().inspect("move").status() == Rollout.Status.ROLLED_BACK);
            assertThat(a.gateway().runtime().rollouts().percent("move")).hasValue(0);

            // Replica a restarts on its own ledger: the rollout, its state and its history are read back.
            List<?> before = a.gateway().runtime().rollouts().inspect("move").history();
            AdminCalls.stop(a.gateway());
            Replica again = start(vertx, "a.db");
            RolloutView restarted = again.gateway().runtime().rollouts().inspect("move");
            assertThat(restarted.status()).isEqualTo(Rollout.Status.ROLLED_BACK);
            assertThat(restarted.history()).isEqualTo(before);
            assertThat(call(again, "GET", "/admin/rollouts/move", null, 200).path("history")).hasSize(3);

            AdminCalls.stop(again.gateway());
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

    private static int stageOn(Replica r) {
        try {
            return r.gateway().runtime().rollouts().inspect("move").stage();
        } catch (java.util.NoSuchElementException notYet) {
            return -2;
        }
    }

    private static JsonNode call(Replica r, String method, String path, String body, int status) throws Exception {
        HttpResponse<String> resp = AdminCalls.admin(r.gateway(), method, path, ADMIN, body);
        assertThat(resp.statusCode()).as(resp.body()).isEqualTo(status);
        return AdminCalls.json(resp);
    }

    private Replica start(Vertx vertx, String ledger) throws Exception {
        SluiceConfig config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "%s" } } }
                deployments:
                  old: { kind: openai, base_url: "http://127.0.0.1:1" }
                  new: { kind: openai, base_url: "http://127.0.0.1:2" }
                profiles: { p: { deployment: old, model: gpt-4o-mini } }
                """.formatted(ADMIN), "rollout-relay.yaml", v -> null).withLedger(LedgerSettings.sqlite(dir.resolve(ledger)));
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
