package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code sluice rollout}: a running gateway's rollouts created, commanded and deleted, one line per rollout or decision. */
class RolloutCommandTest {

    static Vertx vertx;
    static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        var config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-cli-rollout" }, v: { scope: read, token: "sla-cli-view" } } }
                deployments:
                  old: { kind: openai, base_url: "http://127.0.0.1:1" }
                  new: { kind: openai, base_url: "http://127.0.0.1:2" }
                profiles:
                  p: { deployment: old, model: gpt-4o-mini }
                  q: { deployment: old, model: gpt-4o-mini }
                  r: { deployment: old, model: gpt-4o-mini }
                rollouts:
                  move: { profile: p, to: new, steps: [10, 50, 100], interval: 1h }
                  idle: { profile: q, to: new, steps: [5, 100], interval: 1h }
                """, "cli-rollout.yaml", v -> null);
        vertx = Vertx.vertx();
        gateway = Gateway.builder(config).vertx(vertx).instances(1).adaptive(false).start().toCompletionStage()
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        gateway.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    static AdminCommandTest.Run rollout(String token, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of("SLUICE_ADMIN_URL", gateway.admin().orElseThrow().baseUrl(), "SLUICE_ADMIN_TOKEN",
                token);
        int status = RolloutCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env::get);
        return new AdminCommandTest.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aRolloutIsStartedPausedResumedAdvancedAndRolledBackOneLineEach() {
        assertThat(rollout("sla-cli-view", "list").out()).contains(
                "move  p: old -> new  pending  stage -1 of 3  0%  failed intervals 0\n");

        var started = rollout("sla-cli-rollout", "start", "move");
        assertThat(started.status()).as(started.err()).isZero();
        assertThat(started.out()).startsWith("move: 20").contains("  started by ops  stage -1 -> 0  10%: ")
                .endsWith("\n").hasLineCount(1);
        assertThat(rollout("sla-cli-rollout", "pause", "move").out()).contains("  paused by ops  stage 0 -> 0  10%: ");
        assertThat(rollout("sla-cli-rollout", "resume", "move").out()).contains("  resumed by ops  stage 0 -> 0  10%: ");
        assertThat(rollout("sla-cli-rollout", "advance", "move").out()).contains("  advanced by ops  stage 0 -> 1  50%: ");
        assertThat(rollout("sla-cli-rollout", "rollback", "move", "--reason", "answers look wrong").out())
                .contains("  rolled_back by ops  stage 1 -> ").endsWith("0%: rolled back by ops: answers look wrong\n");

        var shown = rollout("sla-cli-view", "show", "move");
        assertThat(shown.status()).isZero();
        assertThat(shown.out().lines()).hasSize(6).first().asString()
                .startsWith("move  p: old -> new  rolled_back  stage ");
        assertThat(shown.out().lines().skip(1)).extracting(l -> l.split("  ")[2])
                .containsExactly("started by ops", "paused by ops", "resumed by ops", "advanced by ops",
                        "rolled_back by ops");
    }

    @Test
    void theApisRefusalIsPrintedWithItsCodeAndExitsOne() {
        var notRunning = rollout("sla-cli-rollout", "resume", "idle");
        assertThat(notRunning.status()).isEqualTo(1);
        assertThat(notRunning.err()).startsWith("sluice rollout: 409 rollout_state: ");
        var unknown = rollout("sla-cli-view", "show", "nope");
        assertThat(unknown.status()).isEqualTo(1);
        assertThat(unknown.err()).isEqualTo("sluice rollout: 404 unknown_rollout: No rollout \"nope\" is in force."
                + " [field rollout]\n");
        var readOnly = rollout("sla-cli-view", "start", "idle");
        assertThat(readOnly.status()).isEqualTo(1);
        assertThat(readOnly.err()).startsWith("sluice rollout: 403 ");
        assertThat(rollout("sla-cli-view", "list").out()).contains("idle  q: old -> new  pending  stage -1 of 2  0%");
    }

    @Test
    void aMissingIdIsBadArgumentsWithTheUsage() {
        var r = rollout("sla-cli-rollout", "advance");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).startsWith("sluice rollout advance: ID is required, once\nusage: sluice rollout");
        assertThat(rollout("sla-cli-rollout", "rollback", "move", "--why", "x").err())
                .startsWith("sluice rollout rollback: unknown option '--why'");
    }

    @Test
    void aRolloutIsCreatedFromOptionsAndDeleted() {
        var created = rollout("sla-cli-rollout", "create", "move-r", "--profile", "r", "--to", "new", "--steps",
                "5,25,100", "--interval", "10m", "--growth", "rpm=60", "--thresholds", "provider_429_rate=0.005,p95_latency=2s",
                "--start", "immediately");
        assertThat(created.status()).as(created.err()).isZero();
        assertThat(created.out()).isEqualTo("created move-r  r: old -> new  running  stage 0 of 3  5%  failed intervals 0\n");

        var deleted = rollout("sla-cli-rollout", "delete", "move-r");
        assertThat(deleted.status()).as(deleted.err()).isZero();
        assertThat(deleted.out()).isEqualTo("deleted move-r  r: old -> new\n");
        assertThat(rollout("sla-cli-view", "list").out()).doesNotContain("move-r");
    }

    @Test
    void aBadDefinitionIsTheGatewaysRefusalNamingTheField() {
        var r = rollout("sla-cli-rollout", "create", "bad", "--profile", "r", "--to", "new", "--steps", "50,10");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).startsWith("sluice rollout: 422 invalid_value: ").endsWith("[field steps[1]]\n");
    }
}
