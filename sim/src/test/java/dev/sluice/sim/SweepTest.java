package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The short form of the sweep that CI runs: every bundled scenario, compressed to two minutes,
 * against members 1 to 3 of the provider family, with the naive clients and sluice. It asserts what
 * must hold now (nothing lost, every goal computed, the same result for the same seed) and prints
 * the table. It does not assert the governor's goals, which today's governor misses (see
 * docs/SIMULATION.md); each member's {@link Sweep.Member#goals()} is machine-checkable, so a test
 * can assert them once the governor meets them.
 */
class SweepTest {

    static final int MEMBERS = 3;
    static final Duration LENGTH = Duration.ofMinutes(2);

    static List<Scenario> scenarios() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("../scenarios"))) {
            return s.filter(p -> p.toString().endsWith(".yaml")).sorted().map(ScenarioLoader::load)
                    .map(x -> x.scaledTo(x.duration().compareTo(LENGTH) < 0 ? x.duration() : LENGTH)).toList();
        }
    }

    @Test
    void shortSweepLosesNothingComputesEveryGoalAndIsDeterministic() throws IOException {
        List<Scenario> scenarios = scenarios();
        List<Sweep.ScenarioSweep> sweep = Sweep.run(scenarios, MEMBERS, Optional.empty(), name -> { });
        System.out.print(SweepTable.render(sweep, MEMBERS, true));
        assertThat(sweep).hasSize(scenarios.size());
        for (Sweep.ScenarioSweep s : sweep) {
            assertThat(s.members()).hasSize(MEMBERS);
            for (Sweep.Member m : s.members()) {
                String what = s.scenario().name() + " m" + m.model() + " seed " + s.seed();
                assertThat(m.none().lost()).as(what + " none").isZero();
                assertThat(m.sluice().lost()).as(what + " sluice").isZero();
                assertThat(m.none().json().path("requests").asLong()).as(what + ": both face the same requests")
                        .isEqualTo(m.sluice().json().path("requests").asLong()).isPositive();
                assertThat(m.goals()).extracting(GoalCheck.Result::goal).containsExactlyElementsOf(GoalCheck.GOALS);
                assertThat(m.providers()).allSatisfy(p -> assertThat(p).startsWith("m" + m.model() + " ["));
            }
        }
        Sweep.ScenarioSweep first = sweep.getFirst();
        Sweep.Member again = Sweep.run(List.of(first.scenario()), 1, Optional.empty(), name -> { }).getFirst()
                .members().getFirst();
        assertThat(again.sluice().json()).as("same seed, same member, same run")
                .isEqualTo(first.members().getFirst().sluice().json());
        assertThat(again.none().json()).isEqualTo(first.members().getFirst().none().json());
    }
}
