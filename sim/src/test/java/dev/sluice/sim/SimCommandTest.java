package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SimCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SimCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void jsonHasOneObjectPerStrategyWithTheRequiredFields() throws Exception {
        assertThat(run("--scenario", "weighted-tenants", "--strategy", "all", "--format", "json", "--short",
                "--scenarios", "../scenarios")).isZero();
        JsonNode runs = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).path("runs");
        assertThat(runs).hasSize(4);
        for (JsonNode r : runs) {
            assertThat(r.has("provider_429_rate") && r.has("utilization") && r.has("goodput_tokens")
                    && r.has("jain_index") && r.has("weighted_share_error") && r.has("lost")).isTrue();
            JsonNode batch = r.path("classes").path("batch");
            assertThat(batch.has("success_rate")).isTrue();
            assertThat(batch.path("queue_wait_ms").has("p50") && batch.path("queue_wait_ms").has("p95")
                    && batch.path("queue_wait_ms").has("p99")).isTrue();
            assertThat(r.path("tenants").size()).isEqualTo(3);
            assertThat(r.path("lost").asLong()).isZero();
        }
        assertThat(runs.get(0).path("estimate_error").isNull()).as("none estimates nothing").isTrue();
        assertThat(runs.get(3).path("estimate_error").has("input_abs_error")).isTrue();
    }

    @Test
    void tableNamesEveryStrategyAndTheGoals() {
        assertThat(run("--scenario", "../scenarios/two-providers.yaml", "--strategy", "all", "--short")).isZero();
        String table = out.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("== two-providers", "none", "static", "seed-controller", "sluice", "429 rate",
                "goals", "per class");
    }

    @Test
    void oneStrategyRunsAlone() throws Exception {
        assertThat(run("--scenario", "noisy-neighbour", "--strategy", "static", "--format", "json", "--short",
                "--scenarios", "../scenarios")).isZero();
        JsonNode runs = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).path("runs");
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).path("strategy").asText()).isEqualTo("static");
    }

    @Test
    void noAdaptiveRunsTheGovernorAloneAndSaysSo() throws Exception {
        assertThat(run("--scenario", "limit-cut", "--strategy", "sluice", "--no-adaptive", "--format", "json",
                "--short", "--scenarios", "../scenarios")).isZero();
        JsonNode r = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).path("runs").get(0);
        assertThat(r.path("adaptive").asBoolean(true)).isFalse();
        assertThat(r.path("diagnostics").has("replica0_azure-east_final_ramp_stage")).isFalse();
    }

    @Test
    void endToEndRefusesSimulatorOnlyStrategies() {
        assertThat(run("--scenario", "noisy-neighbour", "--strategy", "static", "--e2e", "--scenarios",
                "../scenarios")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--e2e runs the real gateway, strategy sluice only");
    }

    @Test
    void aDrawnModelIsNamedInTheTableAndTheJson() throws Exception {
        assertThat(run("--scenario", "limit-cut", "--strategy", "none,sluice", "--model", "4", "--format", "json",
                "--short", "--scenarios", "../scenarios")).isZero();
        JsonNode runs = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).path("runs");
        assertThat(runs).hasSize(2);
        JsonNode sluice = runs.get(1);
        assertThat(sluice.path("provider_model").asInt()).isEqualTo(4);
        assertThat(sluice.path("providers").path("azure-east").asText()).startsWith("m4 [");
        assertThat(sluice.has("timeouts") && sluice.has("interactive_fits")).isTrue();
        JsonNode goals = sluice.path("goals");
        assertThat(goals).hasSize(GoalCheck.GOALS.size());
        assertThat(goals.get(0).has("applies") && goals.get(0).has("met") && goals.get(0).has("bound")).isTrue();
    }

    @Test
    void sweepRefusesAModelOfItsOwn() {
        assertThat(run("--sweep", "2", "--model", "1", "--scenarios", "../scenarios")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--sweep draws its own members");
        assertThat(run("--sweep", "0")).isEqualTo(2);
    }

    @Test
    void badArgumentsExitWithUsage() {
        assertThat(run("--strategy", "sluice")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--scenario is required", "usage:");
    }

    @Test
    void unknownStrategyIsNamed() {
        assertThat(run("--scenario", "x", "--strategy", "magic")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--strategy: magic");
    }

    @Test
    void missingScenarioIsNamed() {
        assertThat(run("--scenario", "no-such", "--scenarios", "../scenarios")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--scenario no-such: no such file");
    }
}
