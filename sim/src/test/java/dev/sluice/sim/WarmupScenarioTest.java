package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The bundled scheduled job's warm-up under the sluice strategy, beside the same run without the
 * warm-up: the job starting at its full rate meets the provider's acceleration rule.
 */
class WarmupScenarioTest {

    private static final String FILE = "warmup-scheduled-job.yaml";

    private static Scenario withoutWarmup() throws IOException {
        String yaml = Files.readString(Path.of("../scenarios/" + FILE));
        String warmups = yaml.substring(yaml.indexOf("warmups:"), yaml.indexOf("orgs:"));
        return ScenarioLoader.parse(yaml.replace(warmups, ""), FILE + "-no-warmup");
    }

    @Test
    void aScheduledJobWarmsUpAgainstAnAccelerationRuleWithoutARefusal() throws IOException {
        Scenario s = ScenarioLoader.load(Path.of("../scenarios/" + FILE));

        RunReport r = Simulation.run(s, "sluice", s.seed(), true);
        JsonNode j = r.json();
        RunReport cold = Simulation.run(withoutWarmup(), "sluice", s.seed(), true);

        JsonNode d = j.path("deployments").path("claude");
        assertThat(d.path("provider_rejections").asLong()).as("provider 429s with the warm-up: " + d).isZero();
        assertThat(j.path("classes").path("batch").path("success_rate").asDouble()).as("the job: " + j.path("classes"))
                .isEqualTo(1.0);
        assertThat(j.path("classes").path("interactive").path("success_rate").asDouble()).isGreaterThanOrEqualTo(0.99);
        assertThat(cold.json().path("deployments").path("claude").path("provider_rejections").asLong())
                .as("the job at its full rate at once").isPositive();
        JsonNode diag = j.path("diagnostics");
        assertThat(diag.path("warmup_nightly_started_at_ms").asLong())
                .as("started at the job's first request").isPositive();
        assertThat(diag.path("warmup_nightly_final_done").asLong()).as("done: " + diag).isEqualTo(1);
        assertThat(diag.path("warmup_nightly_grown_minutes").asLong()).as("grew to the tenant's 240 a minute")
                .isEqualTo(6);
        assertThat(r.lost()).isZero();
    }
}
