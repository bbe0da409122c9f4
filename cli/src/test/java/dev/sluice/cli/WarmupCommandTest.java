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

/** {@code sluice warmup}: a running gateway's warm-ups created, paused, resumed and deleted, one line per warm-up or decision. */
class WarmupCommandTest {

    static Vertx vertx;
    static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        var config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-cli-warmup" }, v: { scope: read, token: "sla-cli-wview" } } }
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                warmups:
                  nightly: { tenant: jobs, max_growth_per_minute: { rpm: 40 }, initial: { rpm: 12 } }
                orgs: { o: { tenants: { jobs: { limits: { rpm: 240 } }, evals: { limits: { rpm: 600, tpm: 90000 } } } } }
                """, "cli-warmup.yaml", v -> null);
        vertx = Vertx.vertx();
        gateway = Gateway.builder(config).vertx(vertx).instances(1).adaptive(false).start().toCompletionStage()
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        gateway.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    static AdminCommandTest.Run warmup(String token, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of("SLUICE_ADMIN_URL", gateway.admin().orElseThrow().baseUrl(), "SLUICE_ADMIN_TOKEN",
                token);
        int status = WarmupCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env::get);
        return new AdminCommandTest.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aWarmupIsPausedAndResumedOneLineEach() {
        assertThat(warmup("sla-cli-wview", "list").out()).contains("nightly  tenant jobs  waiting  grown 0 minutes  rpm 240\n");

        gateway.runtime().warmups().onArrival("jobs");
        var paused = warmup("sla-cli-warmup", "pause", "nightly");
        assertThat(paused.status()).as(paused.err()).isZero();
        assertThat(paused.out()).startsWith("nightly: 20").contains("  paused by ops  minute 0  rpm 12: paused by ops")
                .hasLineCount(1);
        assertThat(warmup("sla-cli-warmup", "resume", "nightly").out()).contains("  resumed by ops  minute 0  rpm 12: ");

        var shown = warmup("sla-cli-wview", "show", "nightly");
        assertThat(shown.out().lines()).hasSize(4).first().asString()
                .isEqualTo("nightly  tenant jobs  warming  grown 0 minutes  rpm 12");
        assertThat(shown.out().lines().skip(1)).extracting(l -> l.split("  ")[2])
                .containsExactly("started by analysis", "paused by ops", "resumed by ops");
    }

    @Test
    void aWarmupIsCreatedFromOptionsAndDeleted() {
        var created = warmup("sla-cli-warmup", "create", "backfill", "--tenant", "evals", "--start", "on_first_traffic",
                "--duration", "2h", "--initial", "rpm=30", "--growth", "rpm=60,tpm=9000", "--thresholds",
                "provider_429_rate=0.02", "--min-requests", "5");
        assertThat(created.status()).as(created.err()).isZero();
        assertThat(created.out()).isEqualTo("created backfill  tenant evals  waiting  grown 0 minutes  rpm 600, tpm 90000\n");

        var deleted = warmup("sla-cli-warmup", "delete", "backfill");
        assertThat(deleted.status()).as(deleted.err()).isZero();
        assertThat(deleted.out()).isEqualTo("deleted backfill  tenant evals\n");
        assertThat(warmup("sla-cli-wview", "list").out()).doesNotContain("backfill");
    }

    @Test
    void theGatewaysRefusalsArePrintedWithCodeAndField() {
        var bad = warmup("sla-cli-warmup", "create", "bad", "--tenant", "jobs", "--growth", "tpm=10");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.err()).startsWith("sluice warmup: 422 invalid_value: ").endsWith("[field max_growth_per_minute.tpm]\n");
        var taken = warmup("sla-cli-warmup", "create", "second", "--tenant", "jobs", "--growth", "rpm=10");
        assertThat(taken.err()).startsWith("sluice warmup: 409 tenant_warmed_up: ");
        var unknown = warmup("sla-cli-wview", "show", "nope");
        assertThat(unknown.status()).isEqualTo(1);
        assertThat(unknown.err()).startsWith("sluice warmup: 404 unknown_warmup: ");
        var missing = warmup("sla-cli-warmup", "pause");
        assertThat(missing.status()).isEqualTo(2);
        assertThat(missing.err()).startsWith("sluice warmup pause: ID is required, once\nusage: sluice warmup");
    }
}
