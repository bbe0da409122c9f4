package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import dev.sluice.sim.strategy.Strategy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bundled scenario runs in its short form under every strategy, with the invariants checked
 * after every event (each request ends exactly once; every bucket conserves what it reserved;
 * open leases match admitted and unsettled requests), and loses no request.
 */
class BundledScenariosTest {

    static Stream<Path> scenarios() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of("../scenarios"))) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(9);
        return files.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void runsInShortFormUnderEveryStrategyWithNothingLost(Path file) {
        Scenario s = ScenarioLoader.load(file).shortForm();
        assertThat(s.description()).as("every bundled scenario says what it tests").isNotBlank();
        long requests = -1;
        for (String strategy : Strategy.NAMES) {
            RunReport r = Simulation.run(s, strategy, s.seed(), true);
            if (requests < 0) {
                requests = r.json().path("requests").asLong();
            }
            assertThat(r.json().path("requests").asLong()).as("every strategy faces the same requests").isEqualTo(requests);
            assertThat(r.lost()).as(s.name() + "/" + strategy + " seed " + s.seed()).isZero();
            assertThat(r.json().path("requests").asLong()).as("requests of " + strategy).isPositive();
            assertThat(r.json().path("succeeded").asLong()).as("successes of " + strategy).isPositive();
        }
    }
}
