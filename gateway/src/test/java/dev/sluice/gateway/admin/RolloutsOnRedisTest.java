package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.redis.ReplicasOnRedis;
import dev.sluice.runtime.rollout.Rollout;
import dev.sluice.runtime.rollout.RolloutView;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rollout's definition, stage, history and decisions shared by two replicas (a SQLite ledger
 * each, one redis-server of their own ({@link ReplicasOnRedis}), wired as {@code sluice serve}
 * wires them) and read back by a replica that restarts on its ledger.
 */
class RolloutsOnRedisTest {

    private static final Duration EVERY = Duration.ofMillis(250);
    private static final String ADMIN = "sla-rollout-relay";

    @TempDir
    Path dir;

    @RegisterExtension
    final ReplicasOnRedis redis = new ReplicasOnRedis();

    /** A replica and its change relay. */
    private record Replica(Gateway gateway, ReplicasOnRedis.Relay relay) {}

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
            b.relay().awaitImport(() -> stageOn(b) == 1);
            RolloutView there = b.gateway().runtime().rollouts().inspect("move");
            assertThat(there.status()).isEqualTo(Rollout.Status.RUNNING);
            assertThat(there.percent()).isEqualTo(50);
            assertThat(there.history()).isEqualTo(a.gateway().runtime().rollouts().inspect("move").history());

            // The emergency rollback on the other replica returns the first one's traffic too.
            JsonNode back = call(b, "POST", "/admin/rollouts/move/rollback", "{\"reason\":\"answers look wrong\"}", 200);
            assertThat(back.path("rollout").path("status").asText()).isEqualTo("rolled_back");
            a.relay().awaitImport(() -> a.gateway().runtime().rollouts().inspect("move").status() == Rollout.Status.ROLLED_BACK);
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
            AdminCalls.close(vertx);
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
        ReplicasOnRedis.Relay relay = redis.relay(redis.store(), LedgerJournal.open(config.ledger()), EVERY);
        Gateway g = AdminCalls.start(vertx, config, relay.relay());
        relay.onImport(() -> g.control().sync());
        return new Replica(g, relay);
    }

}
