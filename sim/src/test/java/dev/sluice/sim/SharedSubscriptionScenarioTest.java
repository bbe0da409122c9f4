package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The bundled shared-subscription scenario under the sluice strategy: two Azure deployments share
 * one subscription's quota (180,000 tokens a minute, less than their 300,000 together), a third
 * is elsewhere. The subscription's bucket keeps both eastus deployments under the shared quota,
 * interactive requests it cannot take run in westus, never on the other eastus deployment, and
 * batch never falls back.
 */
class SharedSubscriptionScenarioTest {

    @Test
    void theSharedQuotaHoldsBothDeploymentsAndInteractiveOverflowGoesOutsideIt() {
        Scenario s = ScenarioLoader.load(Path.of("../scenarios/shared-subscription.yaml")).shortForm();

        RunReport r = Simulation.run(s, "sluice", s.seed(), true);
        JsonNode j = r.json();

        JsonNode d = j.path("deployments");
        long eastAttempts = d.path("east-1").path("attempts").asLong() + d.path("east-2").path("attempts").asLong();
        long east429 = d.path("east-1").path("provider_rejections").asLong()
                + d.path("east-2").path("provider_rejections").asLong();
        assertThat(d.path("west").path("attempts_by_tenant").path("support").asLong()).as("interactive overflow")
                .isPositive();
        assertThat(d.path("west").path("attempts_by_tenant").has("analytics")).as("batch never falls back").isFalse();
        assertThat(j.path("tenants").path("support").path("success_rate").asDouble()).as("interactive")
                .isGreaterThanOrEqualTo(0.995);
        assertThat(east429).as("the subscription's bucket keeps its deployments under the shared quota")
                .isLessThanOrEqualTo(eastAttempts / 100);
        assertThat(r.lost()).isZero();
    }
}
