package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.DeploymentKind;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The harness and its fake upstream work: small, bounded runs on loopback, no nginx, no Sluice process. */
class LoadHarnessSmokeTest {

    static Vertx vertx;
    static FakeUpstream upstream;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        upstream = await(FakeUpstream.start(vertx, 1));
    }

    @AfterAll
    static void stop() throws Exception {
        await(vertx.close());
    }

    private static LoadSpec direct(boolean streaming, double rate) {
        return new LoadSpec("direct", "127.0.0.1", upstream.port(), "", streaming, 4, rate, Duration.ZERO,
                Duration.ofSeconds(8), 200, 0, false);
    }

    @Test
    void closedLoopMeasuresExactlyTheRequestBudgetOfWholeJsonAnswers() throws Exception {
        LoadResult r = await(LoadGenerator.run(vertx, direct(false, 0), 2));

        assertThat(r.completed()).isEqualTo(200);
        assertThat(r.errors()).isZero();
        assertThat(r.firstError()).isEmpty();
        assertThat(r.p50Micros()).isPositive().isLessThanOrEqualTo(r.p99Micros());
        assertThat(r.throughput()).isPositive();
    }

    @Test
    void streamedAnswersEndWithDone() throws Exception {
        LoadResult r = await(LoadGenerator.run(vertx, direct(true, 0), 2));

        assertThat(r.completed()).isEqualTo(200);
        assertThat(r.errors()).isZero();
    }

    @Test
    void openLoopSendsOnScheduleAndMissesNoneWhenTheServerKeepsUp() throws Exception {
        LoadResult r = await(LoadGenerator.run(vertx, direct(false, 1000), 2));

        assertThat(r.completed()).isEqualTo(200);
        assertThat(r.errors()).isZero();
        assertThat(r.missed()).isZero();
        // 200 requests due at 1,000/s take 0.2 s: the achieved rate cannot exceed the schedule by much.
        assertThat(r.throughput()).isLessThan(1_500);
    }

    @Test
    void distinctPromptsMakeEveryRequestBodyDifferent() throws Exception {
        Set<String> bodies = ConcurrentHashMap.newKeySet();
        HttpServer recorder = await(vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            bodies.add(b.toString(StandardCharsets.UTF_8));
            req.response().putHeader("content-type", "application/json").end("{\"usage\":{}}");
        })).listen(0, "127.0.0.1"));
        try {
            LoadSpec spec = new LoadSpec("distinct", "127.0.0.1", recorder.actualPort(), "", false, 4, 0, Duration.ZERO,
                    Duration.ofSeconds(8), 50, 0, true);

            LoadResult r = await(LoadGenerator.run(vertx, spec, 2));

            assertThat(r.errors()).isZero();
            assertThat(bodies).hasSizeGreaterThanOrEqualTo(50).allMatch(b -> b.contains("Say hello to the benchmark. #"));
            assertThat(HarnessOptions.parse(new String[] {"--prompts", "distinct"}).distinctPrompts()).isTrue();
            assertThat(HarnessOptions.defaults().distinctPrompts()).isFalse();
        } finally {
            await(recorder.close());
        }
    }

    @Test
    void theUpstreamTellsAStreamingRequestByItsBody() {
        assertThat(FakeUpstream.asksForStream(Buffer.buffer(LoadGenerator.requestBody(true, 0)))).isTrue();
        assertThat(FakeUpstream.asksForStream(Buffer.buffer(LoadGenerator.requestBody(false, 0)))).isFalse();
        assertThat(FakeUpstream.asksForStream(Buffer.buffer("{\"stream\":false}"))).isFalse();
    }

    @Test
    void aRefusedConnectionIsCountedAsAnError() throws Exception {
        // Nothing listens on a port just freed: every exchange fails, and each failure is counted.
        int closed = Ports.free();
        LoadSpec spec = new LoadSpec("closed", "127.0.0.1", closed, "", false, 1, 0, Duration.ZERO,
                Duration.ofMillis(300), 5, 0, false);

        LoadResult r = await(LoadGenerator.run(vertx, spec, 1));

        assertThat(r.errors()).isEqualTo(r.completed()).isPositive();
        assertThat(r.firstError()).isPresent();
    }

    @Test
    void oneHarnessRunMeasuresEveryFormInRoundsAndWritesTheTable() throws Exception {
        HarnessOptions options = HarnessOptions.parse(new String[] {"--targets", "direct", "--connections", "4",
                "--requests", "100", "--rounds", "2", "--prewarm", "0", "--warmup", "0", "--seconds", "8"});
        ByteArrayOutputStream log = new ByteArrayOutputStream();

        LoadHarness.Outcome o = LoadHarness.run(options, "test", new PrintStream(log, true, StandardCharsets.UTF_8));

        assertThat(o.results()).hasSize(2);
        assertThat(o.results()).allSatisfy(r -> {
            assertThat(r.completed()).isEqualTo(200); // two rounds of 100
            assertThat(r.errors()).as("%s", r.firstError()).isZero();
            assertThat(r.harnessCpuMicros()).isPresent();
        });
        assertThat(o.markdown()).contains("| json | 4 | closed | direct |", "| stream | 4 | closed | direct |",
                "Rounds: each run 2 times");
    }

    @Test
    void theGeneratedSluiceConfigurationIsValid() {
        SluiceConfig config = ConfigLoader.parse(SluiceServer.config(8081, upstream.port()), "bench.yaml");

        assertThat(config.server().port()).isEqualTo(8081);
        assertThat(config.deployments().get("fake-upstream").kind()).isEqualTo(DeploymentKind.OPENAI_COMPATIBLE);
        assertThat(config.deployments().get("fake-upstream").baseUrl().getPort()).isEqualTo(upstream.port());
        assertThat(config.profiles()).containsOnlyKeys(SluiceServer.MODEL);
        assertThat(config.keys()).hasSize(1);
        assertThat(config.missingEnvironment()).isEmpty();
    }

    @Test
    void theObservedGatewayKeepsTheLedgerRowsTheOptionSays() {
        HarnessOptions o = HarnessOptions.parse(new String[] {"--ledger-rows", "not_answered"});
        assertThat(o.ledgerRows()).isEqualTo(dev.sluice.runtime.config.LedgerSettings.Rows.NOT_ANSWERED);
        assertThat(HarnessOptions.defaults().ledgerRows()).isEqualTo(dev.sluice.runtime.config.LedgerSettings.Rows.ALL);
        SluiceConfig config = ConfigLoader.parse(SluiceServer.config(8081, upstream.port(),
                java.util.Optional.of(java.nio.file.Path.of("ledger.db")), o.ledgerRows()), "bench.yaml");
        assertThat(config.ledger().rows()).isEqualTo(dev.sluice.runtime.config.LedgerSettings.Rows.NOT_ANSWERED);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> HarnessOptions.parse(new String[] {"--ledger-rows", "some"}))
                .hasMessage("--ledger-rows: some (expected: all, not_answered or none)");
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }
}
