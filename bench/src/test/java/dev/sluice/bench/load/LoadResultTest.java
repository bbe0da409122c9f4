package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** Rounds of one run make one row. */
class LoadResultTest {

    private static final LoadSpec SPEC = new LoadSpec("sluice", "127.0.0.1", 1, "", false, 64, 5_000, Duration.ZERO,
            Duration.ofSeconds(10), 1000, 0, false);

    private static LoadResult round(long completed, long p50, long p99, long max, double proxyCpu, Optional<String> error) {
        return new LoadResult(SPEC, completed, error.isPresent() ? 1 : 0, 2, 10, p50, p99, max, error,
                OptionalDouble.of(proxyCpu), OptionalDouble.of(20));
    }

    @Test
    void percentilesAreTheMedianOfTheRoundsSoOneDisturbedRoundDoesNotMoveThem() {
        LoadResult r = LoadResult.ofRounds(List.of(round(100, 600, 1_000, 5_000, 60, Optional.empty()),
                round(100, 2_400, 9_000, 40_000, 60, Optional.empty()), round(100, 650, 1_100, 4_000, 60, Optional.empty())));

        assertThat(r.p50Micros()).isEqualTo(650);
        assertThat(r.p99Micros()).isEqualTo(1_100);
        assertThat(r.maxMicros()).isEqualTo(40_000);
    }

    @Test
    void countsAndTimesAddUpAndCpuIsAveragedOverEveryAnswer() {
        LoadResult r = LoadResult.ofRounds(List.of(round(100, 600, 1_000, 5_000, 50, Optional.empty()),
                round(300, 700, 1_000, 5_000, 70, Optional.of("HTTP 500"))));

        assertThat(r.completed()).isEqualTo(400);
        assertThat(r.errors()).isEqualTo(1);
        assertThat(r.missed()).isEqualTo(4);
        assertThat(r.seconds()).isEqualTo(20);
        assertThat(r.p50Micros()).isEqualTo(650); // even count: the mean of the middle two
        assertThat(r.proxyCpuMicros()).hasValue(65.0);
        assertThat(r.firstError()).contains("HTTP 500");
    }

    @Test
    void oneRoundIsItselfAndNoRoundsIsAMistake() {
        LoadResult only = round(100, 600, 1_000, 5_000, 50, Optional.empty());

        assertThat(LoadResult.ofRounds(List.of(only))).isSameAs(only);
        assertThatThrownBy(() -> LoadResult.ofRounds(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HarnessOptions.parse(new String[] {"--rounds", "0"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rounds");
    }
}
