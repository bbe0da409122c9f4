package dev.sluice.runtime.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.Mode;
import dev.sluice.limits.Dimension;
import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.rollout.RolloutAnalysis.Verdict;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** An interval's verdict and the target's room, one rule per test, with exact numbers. */
class RolloutAnalysisTest {

    private static final RolloutConfig.Thresholds BOUNDS = new RolloutConfig.Thresholds(0.01, 0.05, 0.02, 0.5,
            Optional.of(Duration.ofSeconds(2)), Optional.of(Duration.ofMillis(800)), Optional.of(Duration.ofMillis(300)));

    private static IntervalFigures clean(long attempts) {
        return new IntervalFigures(attempts, 0, 0, attempts, 0, OptionalLong.of(1_000_000_000L),
                OptionalLong.of(400_000_000L), OptionalLong.of(10_000_000L), 0.1);
    }

    @Test
    void fewerAttemptsThanTheMinimumAreInconclusiveEvenWithRefusals() {
        IntervalFigures f = new IntervalFigures(19, 5, 0, 19, 0, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), 0);

        assertThat(RolloutAnalysis.judge(f, BOUNDS, 20)).isEqualTo(new Verdict.Inconclusive(19, 20));
    }

    @Test
    void aCleanIntervalPasses() {
        assertThat(RolloutAnalysis.judge(clean(100), BOUNDS, 20)).isEqualTo(new Verdict.Pass());
    }

    @Test
    void aProvider429RateAboveItsBoundIsABreachAndOneAtItsBoundIsNot() {
        IntervalFigures at = new IntervalFigures(200, 2, 0, 200, 0, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), 0);
        IntervalFigures above = new IntervalFigures(200, 3, 0, 200, 0, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), 0);

        assertThat(RolloutAnalysis.judge(at, BOUNDS, 20)).isEqualTo(new Verdict.Pass());
        assertThat(RolloutAnalysis.judge(above, BOUNDS, 20)).isEqualTo(new Verdict.Breach("provider_429_rate", 0.015, 0.01));
    }

    @Test
    void theErrorRateIsAskedAfterThe429Rate() {
        IntervalFigures both = new IntervalFigures(100, 2, 3, 100, 0, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), 0);
        IntervalFigures errors = new IntervalFigures(100, 1, 3, 100, 0, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), 0);

        assertThat(RolloutAnalysis.judge(both, BOUNDS, 20)).isEqualTo(new Verdict.Breach("provider_429_rate", 0.02, 0.01));
        assertThat(RolloutAnalysis.judge(errors, BOUNDS, 20)).isEqualTo(new Verdict.Breach("error_rate", 0.03, 0.02));
    }

    @Test
    void requestsThatLeftTheTargetCountAgainstTheFallbackRate() {
        IntervalFigures f = new IntervalFigures(100, 0, 0, 80, 6, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), 0);

        assertThat(RolloutAnalysis.judge(f, BOUNDS, 20)).isEqualTo(new Verdict.Breach("fallback_rate", 0.075, 0.05));
    }

    @Test
    void latenciesAreJudgedInMillisecondsInTheOrderLatencyTimeToFirstTokenQueueWait() {
        IntervalFigures slow = new IntervalFigures(100, 0, 0, 100, 0, OptionalLong.of(2_500_000_000L),
                OptionalLong.of(900_000_000L), OptionalLong.of(400_000_000L), 0);
        IntervalFigures firstToken = new IntervalFigures(100, 0, 0, 100, 0, OptionalLong.of(2_000_000_000L),
                OptionalLong.of(900_000_000L), OptionalLong.of(400_000_000L), 0);
        IntervalFigures queued = new IntervalFigures(100, 0, 0, 100, 0, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.of(400_000_000L), 0);

        assertThat(RolloutAnalysis.judge(slow, BOUNDS, 20)).isEqualTo(new Verdict.Breach("p95_latency", 2500, 2000));
        assertThat(RolloutAnalysis.judge(firstToken, BOUNDS, 20)).isEqualTo(new Verdict.Breach("p95_ttft", 900, 800));
        assertThat(RolloutAnalysis.judge(queued, BOUNDS, 20)).isEqualTo(new Verdict.Breach("p95_queue_wait", 400, 300));
    }

    @Test
    void anUnboundedLatencyIsNeverABreach() {
        IntervalFigures slow = new IntervalFigures(100, 0, 0, 100, 0, OptionalLong.of(60_000_000_000L),
                OptionalLong.empty(), OptionalLong.empty(), 0);

        assertThat(RolloutAnalysis.judge(slow, RolloutConfig.Thresholds.DEFAULTS, 20)).isEqualTo(new Verdict.Pass());
    }

    @Test
    void estimatesOffByMoreThanTheBoundAreABreach() {
        IntervalFigures f = new IntervalFigures(100, 0, 0, 100, 0, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.empty(), 0.75);

        assertThat(RolloutAnalysis.judge(f, BOUNDS, 20)).isEqualTo(new Verdict.Breach("estimate_error", 0.75, 0.5));
    }

    @Test
    void theTargetHasRoomWhenNormalFullyRampedAndTheNextShareOfLastMinuteFitsItsLimits() {
        RolloutAnalysis.TargetState s = new RolloutAnalysis.TargetState(Mode.NORMAL, 1,
                Map.of(Dimension.REQUESTS, 600L, Dimension.TOTAL_TOKENS, 200_000L));
        RolloutAnalysis.Demand demand = new RolloutAnalysis.Demand(1_000, 300_000, 100_000);

        assertThat(RolloutAnalysis.noRoom("new", s, demand, 50)).isEmpty();
        assertThat(RolloutAnalysis.noRoom("new", s, demand, 60))
                .contains("at 60.0% deployment new would take 240000 tpm of its 200000");
        assertThat(RolloutAnalysis.noRoom("new", s, new RolloutAnalysis.Demand(2_000, 0, 0), 50))
                .contains("at 50.0% deployment new would take 1000 rpm of its 600");
    }

    @Test
    void aTargetOutOfNormalModeOrStillRampingHasNoRoom() {
        RolloutAnalysis.Demand demand = new RolloutAnalysis.Demand(10, 10, 10);

        assertThat(RolloutAnalysis.noRoom("new", new RolloutAnalysis.TargetState(Mode.CAUTION, 1, Map.of()), demand, 5))
                .contains("deployment new is in mode caution");
        assertThat(RolloutAnalysis.noRoom("new", new RolloutAnalysis.TargetState(Mode.NORMAL, 0.5, Map.of()), demand, 5))
                .contains("deployment new is ramping, at 50% of its capacity");
    }
}
