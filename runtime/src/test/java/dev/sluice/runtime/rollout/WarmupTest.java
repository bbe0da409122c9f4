package dev.sluice.runtime.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limits.Dimension;
import dev.sluice.runtime.config.WarmupConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A warm-up's rates from start to done: growth per minute, the pause on a breach, an operator's pause. */
class WarmupTest {

    private static final long MINUTE = Duration.ofMinutes(1).toNanos();

    private static Warmup warmup(Duration duration) {
        WarmupConfig c = new WarmupConfig("nightly", "jobs", Optional.empty(), duration, Map.of(Dimension.REQUESTS, 12L),
                Map.of(Dimension.REQUESTS, 40L), 0.01, 10);
        return new Warmup(c, Map.of(Dimension.REQUESTS, 240L));
    }

    private static void minute(Warmup w, int n, int attempts, int refused) {
        for (int i = 0; i < attempts; i++) {
            w.onAttempt(i < refused);
        }
        assertThat(w.minuteDue(n * MINUTE)).isTrue();
        w.onMinute(n * MINUTE, n);
    }

    @Test
    void waitingItHoldsNothingAndStartedItStartsAtTheInitialRate() {
        Warmup w = warmup(Duration.ofHours(1));
        assertThat(w.rate(Dimension.REQUESTS)).isEqualTo(240);
        assertThat(w.holding()).isFalse();

        w.start(0, 0, "analysis");

        assertThat(w.rate(Dimension.REQUESTS)).isEqualTo(12);
        assertThat(w.factors()).containsEntry(Dimension.REQUESTS, 12 / 240.0);
        assertThat(w.minuteDue(MINUTE - 1)).isFalse();
    }

    @Test
    void eachCleanMinuteGrowsTheRateByTheCeilingUntilTheTenantsLimit() {
        Warmup w = warmup(Duration.ofHours(1));
        w.start(0, 0, "analysis");

        for (int m = 1; m <= 5; m++) {
            minute(w, m, 50, 0);
            assertThat(w.rate(Dimension.REQUESTS)).isEqualTo(12 + 40L * m);
        }
        minute(w, 6, 50, 0);

        assertThat(w.status()).isEqualTo(Warmup.Status.WARMING);
        assertThat(w.rate(Dimension.REQUESTS)).as("capped at the limit").isEqualTo(240);
        minute(w, 7, 50, 0);
        assertThat(w.status()).isEqualTo(Warmup.Status.DONE);
        assertThat(w.history().getLast().reason()).startsWith("every rate at the tenant's limit");
    }

    @Test
    void aMinuteAboveTheThresholdPausesGrowthAndACleanOneResumesIt() {
        Warmup w = warmup(Duration.ofHours(1));
        w.start(0, 0, "analysis");
        minute(w, 1, 50, 0);

        minute(w, 2, 50, 2);
        assertThat(w.status()).isEqualTo(Warmup.Status.PAUSED);
        assertThat(w.rate(Dimension.REQUESTS)).as("held").isEqualTo(52);
        assertThat(w.history().getLast().reason()).isEqualTo("provider 429 rate 0.04 above 0.01 (2 provider 429s of 50 attempts)");

        minute(w, 3, 50, 0);
        assertThat(w.status()).isEqualTo(Warmup.Status.WARMING);
        assertThat(w.rate(Dimension.REQUESTS)).isEqualTo(92);
    }

    @Test
    void tooFewAttemptsToJudgeDoNotPause() {
        Warmup w = warmup(Duration.ofHours(1));
        w.start(0, 0, "analysis");

        minute(w, 1, 5, 5);

        assertThat(w.status()).isEqualTo(Warmup.Status.WARMING);
        assertThat(w.grown()).isEqualTo(1);
    }

    @Test
    void anOperatorsPauseHoldsUntilAnOperatorResumes() {
        Warmup w = warmup(Duration.ofHours(1));
        w.start(0, 0, "analysis");
        w.pause(1, "ops");

        minute(w, 1, 50, 0);
        assertThat(w.status()).isEqualTo(Warmup.Status.PAUSED);
        assertThat(w.rate(Dimension.REQUESTS)).isEqualTo(12);

        w.resume(2, "ops");
        minute(w, 2, 50, 0);
        assertThat(w.rate(Dimension.REQUESTS)).isEqualTo(52);
        assertThatThrownBy(() -> w.resume(3, "ops")).isInstanceOf(IllegalStateException.class)
                .hasMessage("warm-up nightly is warming and cannot resume");
    }

    @Test
    void itEndsWhenItsDurationIsOverWhereverTheRateIs() {
        Warmup w = warmup(Duration.ofMinutes(2));
        w.start(0, 0, "analysis");
        minute(w, 1, 50, 0);
        minute(w, 2, 50, 0);

        assertThat(w.status()).isEqualTo(Warmup.Status.DONE);
        assertThat(w.rate(Dimension.REQUESTS)).isEqualTo(240);
        assertThat(w.factors()).containsEntry(Dimension.REQUESTS, 1.0);
    }
}
