package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.scenario.Arrival;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ArrivalGeneratorTest {

    private static final long SECOND = 1_000_000_000L;

    private static List<Long> all(Arrival a, long start, long stop) {
        ArrivalGenerator g = new ArrivalGenerator(a, start, stop, new SplittableRandom(1));
        List<Long> out = new ArrayList<>();
        for (long t = g.next(); t != Long.MAX_VALUE; t = g.next()) {
            out.add(t);
        }
        return out;
    }

    @Test
    void constantRateIsEvenlySpaced() {
        List<Long> t = all(new Arrival.Constant(4, List.of()), 0, 10 * SECOND);
        assertThat(t).hasSize(39).startsWith(250_000_000L, 500_000_000L);
    }

    @Test
    void stepChangesTheRateFromItsTimeOn() {
        List<Long> t = all(new Arrival.Constant(1, List.of(new Arrival.Step(Duration.ofSeconds(10), 10))), 0,
                20 * SECOND);
        assertThat(t.stream().filter(x -> x < 10 * SECOND)).hasSize(9);
        assertThat(t.stream().filter(x -> x >= 10 * SECOND)).hasSize(100);
    }

    @Test
    void poissonCountIsNearRateTimesDuration() {
        assertThat(all(new Arrival.Poisson(5, List.of()), 0, 1000 * SECOND)).hasSizeBetween(4800, 5200);
    }

    @Test
    void burstWakesAllWorkersAtTheTopOfEachPeriodWithinTheJitter() {
        List<Long> t = all(new Arrival.Burst(50, Duration.ofMinutes(1), Duration.ZERO, Duration.ofMillis(200),
                List.of()), 0, 180 * SECOND);
        assertThat(t).hasSize(150);
        assertThat(t.subList(0, 50)).allMatch(x -> x < 200_000_000L);
        assertThat(t.subList(50, 100)).allMatch(x -> x >= 60 * SECOND && x < 60 * SECOND + 200_000_000L);
    }

    @Test
    void nothingArrivesBeforeTheStartOrAfterTheStop() {
        List<Long> t = all(new Arrival.Constant(2, List.of()), 5 * SECOND, 8 * SECOND);
        assertThat(t).allMatch(x -> x > 5 * SECOND && x < 8 * SECOND).hasSize(5);
    }
}
