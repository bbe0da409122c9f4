package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.nio.file.Path;
import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * For any seed, the governor's invariants hold after every event of a run (each request ends
 * exactly once, every bucket conserves what it reserved, open leases match admitted and unsettled
 * requests), and nothing is lost. Runs are one simulated minute of two saturating scenarios.
 */
class InvariantProperties {

    private static final Scenario WEIGHTED =
            ScenarioLoader.load(Path.of("../scenarios/weighted-tenants.yaml")).scaledTo(Duration.ofMinutes(1));
    private static final Scenario FAULTS =
            ScenarioLoader.load(Path.of("../scenarios/two-providers.yaml")).scaledTo(Duration.ofMinutes(1));

    @Property(tries = 6)
    void sluiceKeepsItsInvariantsForAnySeed(@ForAll @IntRange(min = 0, max = 1_000_000) int seed) {
        for (Scenario s : new Scenario[] {WEIGHTED, FAULTS}) {
            RunReport r = Simulation.run(s, "sluice", seed, true);
            assertThat(r.lost()).as(s.name() + " seed " + seed).isZero();
            long ended = r.json().path("requests").asLong();
            long classTotal = 0;
            for (var c : r.json().path("classes")) {
                classTotal += c.path("requests").asLong();
            }
            assertThat(classTotal).as("every request ended once, seed " + seed).isEqualTo(ended);
        }
    }
}
