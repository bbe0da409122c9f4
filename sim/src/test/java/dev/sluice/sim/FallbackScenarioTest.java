package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The bundled fallback scenario under the sluice strategy: Azure is cut to a fifth, OpenAI has
 * room. Interactive support requests fall back and keep succeeding; the region-pinned bank and
 * the batch analytics tenant never run on OpenAI. The short form's seed gives, for instance,
 * 293 of support's 470 attempts on OpenAI, every one answered, and one provider 429 in all (on
 * Azure, as it was cut).
 */
class FallbackScenarioTest {

    @Test
    void interactiveFallsBackWhileThePinnedTenantAndBatchNeverRunOnTheFallback() {
        Scenario s = ScenarioLoader.load(Path.of("../scenarios/fallback-cut.yaml")).shortForm();

        RunReport r = Simulation.run(s, "sluice", s.seed(), true);
        JsonNode j = r.json();

        JsonNode onFallback = j.path("deployments").path("openai-us").path("attempts_by_tenant");
        assertThat(onFallback.path("support").asLong()).as("support falls back").isPositive();
        assertThat(onFallback.has("bank")).as("the bank is pinned to eastus").isFalse();
        assertThat(onFallback.has("analytics")).as("batch never falls back").isFalse();
        assertThat(j.path("tenants").path("support").path("success_rate").asDouble()).as("interactive while the fallback has room")
                .isGreaterThanOrEqualTo(0.995);
        JsonNode deployments = j.path("deployments");
        assertThat(deployments.path("openai-us").path("provider_rejections").asLong())
                .as("the fallback's own buckets keep it under its limits: no more 429s there than on the primary")
                .isLessThanOrEqualTo(deployments.path("azure-east").path("provider_rejections").asLong());
        assertThat(r.lost()).isZero();
    }
}
