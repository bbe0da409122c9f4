package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.control.AuditRecord;
import dev.sluice.runtime.control.ControlJournal;
import dev.sluice.runtime.rollout.Rollout;
import dev.sluice.runtime.rollout.RolloutView;
import dev.sluice.runtime.rollout.Warmup;
import dev.sluice.runtime.rollout.Warmups;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rollout's and a warm-up's state across a restart of one gateway without Redis: kept with the
 * default ledger (SQLite, {@code LedgerJournal}) and read back; forgotten with {@code ledger: off}
 * (the journal in memory), as ADMIN.md says.
 */
class RolloutStateRestartTest {

    private static final String ADMIN = "sla-restart";
    private static final String KEY = "sk-restart-jobs";

    @TempDir
    Path dir;

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        AdminCalls.close(vertx);
    }

    private SluiceConfig config() {
        return ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "%s" } } }
                deployments:
                  old: { kind: openai, base_url: "http://127.0.0.1:1" }
                  new: { kind: openai, base_url: "http://127.0.0.1:2" }
                profiles: { p: { deployment: old, model: gpt-4o-mini } }
                orgs:
                  o: { tenants: { jobs: { limits: { rpm: 600 }, teams: { t: { keys: { k: { secret: "%s", profiles: [p] } } } } } } }
                """.formatted(ADMIN, KEY), "restart.yaml", v -> null);
    }

    /** Creates, starts and advances a rollout; creates a warm-up, starts it with a request and pauses it. */
    private static void decide(Gateway g) throws Exception {
        call(g, "POST", "/admin/rollouts", "{\"id\":\"move\",\"profile\":\"p\",\"to\":\"new\",\"steps\":[10,50,100],"
                + "\"interval\":\"1h\"}", 201);
        call(g, "POST", "/admin/rollouts/move/start", null, 200);
        call(g, "POST", "/admin/rollouts/move/advance", null, 200);
        call(g, "POST", "/admin/warmups", "{\"id\":\"nightly\",\"tenant\":\"jobs\",\"duration\":\"1h\","
                + "\"initial\":{\"rpm\":12},\"max_growth_per_minute\":{\"rpm\":40}}", 201);
        AdminCalls.chat(g, KEY); // its first request starts the warm-up (the upstream's answer does not matter)
        awaitStatus(g, "warming");
        call(g, "POST", "/admin/warmups/nightly/pause", null, 200);
    }

    @Test
    void withTheDefaultLedgerARestartResumesTheRolloutAndTheWarmupWithTheirHistories() throws Exception {
        SluiceConfig config = config().withLedger(LedgerSettings.sqlite(dir.resolve("sluice.db")));
        Gateway first = AdminCalls.start(vertx, config, LedgerJournal.open(config.ledger()));
        decide(first);
        RolloutView rollout = first.runtime().rollouts().inspect("move");
        Warmups.View warmup = first.runtime().warmups().inspect("nightly");
        ControlJournal journal = first.control().journal();
        // Decisions are written off the event loop: started and advanced, started and paused.
        awaitJournaled(journal, "rollout.state", 2);
        awaitJournaled(journal, "warmup.state", 2);
        AdminCalls.stop(first);

        Gateway again = AdminCalls.start(vertx, config, LedgerJournal.open(config.ledger()));
        try {
            RolloutView r = again.runtime().rollouts().inspect("move");
            assertThat(r.status()).isEqualTo(Rollout.Status.RUNNING);
            assertThat(r.percent()).isEqualTo(50);
            assertThat(r.history()).isEqualTo(rollout.history()).hasSize(2);
            Warmups.View w = again.runtime().warmups().inspect("nightly");
            assertThat(w.status()).isEqualTo(warmup.status());
            assertThat(w.status()).isEqualTo(Warmup.Status.PAUSED);
            assertThat(w.history()).isEqualTo(warmup.history());
        } finally {
            AdminCalls.stop(again);
        }
    }

    @Test
    void withTheLedgerOffARestartForgetsWhatTheApiMadeAndDecided() throws Exception {
        Gateway first = AdminCalls.start(vertx, config(), ControlJournal.inMemory());
        decide(first);
        AdminCalls.stop(first);

        Gateway again = AdminCalls.start(vertx, config(), ControlJournal.inMemory());
        try {
            assertThat(again.runtime().rollouts().inspect()).isEmpty();
            assertThat(again.runtime().warmups().inspect()).isEmpty();
        } finally {
            AdminCalls.stop(again);
        }
    }

    private static void awaitStatus(Gateway g, String status) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!g.runtime().warmups().inspect("nightly").status().name().equalsIgnoreCase(status)) {
            assertThat(System.nanoTime()).as("warm-up " + status + " in time").isLessThan(until);
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // a bounded wait on the condition
        }
    }

    private static void awaitJournaled(ControlJournal j, String action, int n) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (j.audit(1_000, Long.MAX_VALUE).stream().map(AuditRecord::action).filter(action::equals).count() < n) {
            assertThat(System.nanoTime()).as(n + " " + action + " journaled in time").isLessThan(until);
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // a bounded wait on the condition
        }
    }

    private static JsonNode call(Gateway g, String method, String path, String body, int status) throws Exception {
        HttpResponse<String> resp = AdminCalls.admin(g, method, path, ADMIN, body);
        assertThat(resp.statusCode()).as(method + " " + path + ": " + resp.body()).isEqualTo(status);
        return AdminCalls.json(resp);
    }
}
