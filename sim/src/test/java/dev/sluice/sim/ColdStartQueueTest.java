package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Work queued at a cold start, before any call's duration is known, leaves the queue before its
 * deadline instead of staying there until its client gives up (issue 16 items 3 and 8). Both runs
 * are sweep members that queued their first seconds' batch work with no duration to plan by: 111
 * batch requests of top-of-minute-burst member 20 and 20 of cold-start-timeouts member 2 were still
 * queued when their clients' deadlines passed.
 */
class ColdStartQueueTest {

    private static JsonNode sluice(String scenario, int model) {
        Scenario s = ScenarioLoader.load(Path.of("../scenarios/" + scenario + ".yaml")).shortForm();
        RunReport r = Simulation.run(s, "sluice", s.seed(), model, false, Optional.empty(), true);
        assertThat(r.lost()).isZero();
        JsonNode j = r.json();
        assertThat(j.has("timeouts_queued")).isTrue();
        return j;
    }

    @Test
    void aBurstQueuedAtTheStartLeavesBeforeItsDeadlineWhenNoLaterRequestOfItsClassComes() {
        assertThat(sluice("top-of-minute-burst", 20).path("timeouts_queued").asLong()).isZero();
    }

    @Test
    void batchQueuedBeforeTheFirstAnswerOfAColdStartLeavesBeforeItsDeadline() {
        assertThat(sluice("cold-start-timeouts", 2).path("timeouts_queued").asLong()).isZero();
    }
}
