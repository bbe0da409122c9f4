package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** The same scenario through the real gateway and mock providers over HTTP on 127.0.0.1, bounded in time. */
class EndToEndTest {

    private static Scenario small() throws URISyntaxException {
        return ScenarioLoader.load(Path.of(Objects.requireNonNull(
                EndToEndTest.class.getResource("/e2e-small.yaml")).toURI()));
    }

    @Test
    void runsTheWorkloadThroughTheGatewayAndReportsTheSameMetrics() throws Exception {
        RunReport r = EndToEnd.run(small(), "sluice", 3, Duration.ofSeconds(6));
        assertThat(r.lost()).isZero();
        assertThat(r.json().path("mode").asText()).isEqualTo("end-to-end");
        assertThat(r.json().path("requests").asLong()).isBetween(20L, 60L);
        assertThat(r.json().path("succeeded").asLong()).isPositive();
        assertThat(r.json().path("dispatched").asLong()).isPositive();
        assertThat(r.json().path("deployments").has("gpt")).isTrue();
        assertThat(r.json().path("deployments").has("claude")).isTrue();
        assertThat(r.json().path("classes").has("interactive")).isTrue();
    }

    @Test
    void onlyTheGatewayStrategyRunsEndToEnd() {
        assertThatThrownBy(() -> EndToEnd.run(small(), "none", 3, Duration.ofSeconds(6)))
                .hasMessageContaining("strategy: none (expected: sluice");
    }
}
