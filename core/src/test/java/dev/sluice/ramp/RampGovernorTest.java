package dev.sluice.ramp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RampGovernorTest {

    private static final long S = 1_000_000_000L;
    private static final long LATENCY = 800_000_000L;

    private final RampConfig config = RampConfig.defaults();

    /** Records {@code n} answers at {@code now}, the first {@code refused} of them 429s. */
    private static void answers(RampGovernor ramp, int n, int refused, long latency, long now) {
        for (int i = 0; i < n; i++) {
            ramp.record(i < refused, latency, now);
        }
    }

    @Test
    void coldStartRunsAtTheFirstStage() {
        RampGovernor ramp = new RampGovernor(config, 0);
        assertThat(ramp.stage()).isZero();
        assertThat(ramp.fraction(0)).isEqualTo(0.10);
        assertThat(ramp.complete(0)).isFalse();
    }

    @Test
    void aReplicaJoiningAFleetTakesTheLiveStageAtOnceButNeverLowersItsOwn() {
        RampGovernor ramp = new RampGovernor(config, 0);

        assertThat(ramp.join(2, S)).hasValueSatisfying(s -> assertThat(s.toStage()).isEqualTo(2));
        assertThat(ramp.stage()).isEqualTo(2);
        // At the stage's full fraction at once: the fleet is already there.
        assertThat(ramp.fraction(S)).isEqualTo(config.stage(2));
        assertThat(ramp.join(1, 2 * S)).isEmpty();
        assertThat(ramp.stage()).isEqualTo(2);
        assertThat(ramp.join(99, 3 * S)).hasValueSatisfying(s -> assertThat(s.toStage()).isEqualTo(config.lastStage()));
    }

    @Test
    void finishingEndsTheRampAtTheFullFractionAtOnceAndOnlyOnce() {
        RampGovernor ramp = new RampGovernor(config, 0);
        ramp.join(config.lastStage() - 1, 0);
        answers(ramp, 10, 0, LATENCY, 2 * S);
        ramp.evaluate(5 * S, true);
        assertThat(ramp.complete(6 * S)).isFalse();

        assertThat(ramp.finish("429 on the last stage", 6 * S)).hasValueSatisfying(s -> {
            assertThat(s.toStage()).isEqualTo(config.lastStage());
            assertThat(s.reason()).isEqualTo("429 on the last stage");
        });
        assertThat(ramp.complete(6 * S)).isTrue();
        assertThat(ramp.fraction(6 * S)).isEqualTo(1.0);
        assertThat(ramp.finish("again", 7 * S)).isEmpty();
    }

    @Test
    void aCleanStageAdvancesAfterFiveSecondsAndTenAnswers() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 10, 0, LATENCY, 2 * S);
        assertThat(ramp.evaluate(4 * S, true)).isEmpty();
        Optional<RampStep> step = ramp.evaluate(5 * S, true);
        assertThat(step).hasValueSatisfying(s -> {
            assertThat(s.fromStage()).isZero();
            assertThat(s.toStage()).isEqualTo(1);
            assertThat(s.target()).isEqualTo(0.25);
            assertThat(s.advanced()).isTrue();
        });
    }

    @Test
    void aRiseIsSpreadAtEightTenthsOfTheTargetPerMinute() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 10, 0, LATENCY, 2 * S);
        ramp.evaluate(5 * S, true);
        // 0.10 + 0.8 * 7.5 s / 60 s = 0.20; 0.25 is reached after 11.25 s.
        assertThat(ramp.fraction(12_500_000_000L)).isCloseTo(0.20, within(1e-9));
        assertThat(ramp.fraction(16_250_000_000L)).isCloseTo(0.25, within(1e-9));
        assertThat(ramp.fraction(100 * S)).isEqualTo(0.25);
    }

    @Test
    void theStageIsHeldOnlyOnceItsFractionIsReached() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 10, 0, LATENCY, 2 * S);
        ramp.evaluate(5 * S, true);
        answers(ramp, 10, 0, LATENCY, 10 * S);
        // Reached at 16.25 s; held for 5 s at 21.25 s.
        assertThat(ramp.evaluate(21 * S, true)).isEmpty();
        assertThat(ramp.evaluate(21_250_000_000L, true)).hasValueSatisfying(s -> assertThat(s.toStage()).isEqualTo(2));
    }

    @Test
    void tooFewAnswersHoldTheStage() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 9, 0, LATENCY, 2 * S);
        assertThat(ramp.evaluate(200 * S, true)).isEmpty();
        assertThat(ramp.stage()).isZero();
    }

    @Test
    void twoRefusalsInTenStepBack() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 10, 0, LATENCY, 2 * S);
        ramp.evaluate(5 * S, true);
        answers(ramp, 10, 2, LATENCY, 7 * S);
        // 2/10 = 20% >= 1%: back to 10% at once, before the stage's time is up.
        Optional<RampStep> step = ramp.evaluate(7 * S, true);
        assertThat(step).hasValueSatisfying(s -> {
            assertThat(s.toStage()).isZero();
            assertThat(s.reason()).isEqualTo("429 ratio 0.200 >= 0.010 over 10 answers");
        });
        assertThat(ramp.fraction(7 * S)).isEqualTo(0.10);
    }

    @Test
    void aLoneRefusalIsAProbeNotAVerdict() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 10, 1, LATENCY, 2 * S);
        assertThat(ramp.evaluate(3 * S, true)).isEmpty();
        assertThat(ramp.evaluate(5 * S, true)).hasValueSatisfying(s -> assertThat(s.toStage()).isEqualTo(1));
    }

    @Test
    void aColdStartWithoutRefusalsIsAtTheFullTargetWithinTwoMinutes() {
        RampGovernor ramp = new RampGovernor(config, 0);
        // Two clean answers a second from the first second on, judged once a second.
        for (long t = 1; t <= 120; t++) {
            answers(ramp, 2, 0, LATENCY, t * S);
            ramp.evaluate(t * S, true);
        }
        // 10% until 5 s, 25% reached at 16.25 s and held until 22 s, 50% reached at 40.75 s and
        // held until 46 s, then 0.8 of the target per minute: 100% at 83.5 s.
        assertThat(ramp.stage()).isEqualTo(3);
        assertThat(ramp.fraction(83 * S)).isLessThan(1.0);
        assertThat(ramp.fraction(83_500_000_000L)).isEqualTo(1.0);
        assertThat(ramp.complete(120 * S)).isTrue();
    }

    @Test
    void latencyBeyondTheBandOfThePreviousStageStepsBack() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 10, 0, 1_000_000_000L, 2 * S);
        ramp.evaluate(5 * S, true);
        answers(ramp, 10, 0, 1_600_000_000L, 10 * S);
        assertThat(ramp.evaluate(10 * S, true)).hasValueSatisfying(s -> {
            assertThat(s.toStage()).isZero();
            assertThat(s.reason()).startsWith("p95 latency 1");
        });
    }

    @Test
    void latencyWithinTheBandAdvances() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 10, 0, 1_000_000_000L, 2 * S);
        ramp.evaluate(5 * S, true);
        answers(ramp, 10, 0, 1_400_000_000L, 10 * S);
        assertThat(ramp.evaluate(22 * S, true)).hasValueSatisfying(s -> assertThat(s.toStage()).isEqualTo(2));
    }

    @Test
    void aCleanStageWaitsWhileAdvancingIsHeldBack() {
        RampGovernor ramp = new RampGovernor(config, 0);
        answers(ramp, 10, 0, LATENCY, 2 * S);
        assertThat(ramp.evaluate(5 * S, false)).isEmpty();
        assertThat(ramp.evaluate(6 * S, true)).isPresent();
    }

    @Test
    void allFourStagesReachTheFullTarget() {
        RampGovernor ramp = new RampGovernor(config, 0);
        long t = 0;
        for (int stage = 0; stage < 3; stage++) {
            answers(ramp, 20, 0, LATENCY, t);
            t += 200 * S;
            assertThat(ramp.evaluate(t, true)).isPresent();
        }
        assertThat(ramp.stage()).isEqualTo(3);
        assertThat(ramp.complete(t)).isFalse();
        assertThat(ramp.complete(t + 37_500_000_000L)).isTrue();
        assertThat(ramp.fraction(t + 37_500_000_000L)).isEqualTo(1.0);
    }

    @Test
    void fiveIdleMinutesStartTheRampOver() {
        RampGovernor ramp = new RampGovernor(config.withStages(List.of(0.5, 1.0)), 0);
        answers(ramp, 20, 0, LATENCY, 0);
        ramp.evaluate(10 * S, true);
        assertThat(ramp.complete(200 * S)).isTrue();
        assertThat(ramp.evaluate(299 * S, true)).isEmpty();
        Optional<RampStep> step = ramp.evaluate(300 * S, true);
        assertThat(step).hasValueSatisfying(s -> assertThat(s.reason()).isEqualTo("idle for 300 s: ramp starts over"));
        assertThat(ramp.fraction(300 * S)).isEqualTo(0.5);
    }

    @Test
    void aRestartAfterACooldownDropsToTheStageBelowAndNeverRaises() {
        RampGovernor ramp = new RampGovernor(config, 0);
        long t = 0;
        for (int stage = 0; stage < 3; stage++) {
            answers(ramp, 20, 0, LATENCY, t);
            t += 200 * S;
            ramp.evaluate(t, true);
        }
        t += 60 * S;
        assertThat(ramp.restartAtOrBelow(0.65, "paused", t)).hasValueSatisfying(s -> {
            assertThat(s.fromStage()).isEqualTo(3);
            assertThat(s.toStage()).isEqualTo(2);
        });
        assertThat(ramp.fraction(t)).isEqualTo(0.5);
        assertThat(ramp.restartAtOrBelow(0.9, "paused", t)).isEmpty();
        assertThat(ramp.restartAtOrBelow(0.05, "paused", t)).hasValueSatisfying(s -> assertThat(s.toStage()).isZero());
    }

    @Test
    void aDisabledRampIsAlwaysAtTheFullTarget() {
        RampGovernor ramp = new RampGovernor(RampConfig.disabled(), 0);
        assertThat(ramp.fraction(0)).isEqualTo(1.0);
        assertThat(ramp.evaluate(1_000 * S, true)).isEmpty();
        assertThat(ramp.restartAtOrBelow(0.1, "paused", 0)).isEmpty();
    }

    @Test
    void stagesMustRiseAndEndAtTheFullTarget() {
        assertThatThrownBy(() -> config.withStages(List.of(0.1, 0.5, 0.4, 1.0)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("stages[2]: 0.4 (expected: in (0.5, 1] and above the stage before)");
        assertThatThrownBy(() -> config.withStages(List.of(0.1, 0.5)))
                .hasMessage("stages: [0.1, 0.5] (expected: a last stage of 1.0 (the full target))");
        assertThatThrownBy(() -> config.withStageDuration(Duration.ZERO))
                .hasMessage("stage_duration: PT0S (expected: > 0)");
        assertThatThrownBy(() -> config.withMaxGrowthPerMinute(-0.5))
                .hasMessage("max_growth_per_minute: -0.5 (expected: > 0)");
    }
}
