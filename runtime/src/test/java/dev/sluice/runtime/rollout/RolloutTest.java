package dev.sluice.runtime.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.rollout.RolloutDecision.Action;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What each verdict and command does to a rollout's stage, with the analysis's exact reasons. */
class RolloutTest {

    private static final long INTERVAL = Duration.ofMinutes(5).toNanos();

    static RolloutConfig config(List<Double> steps, List<String> tenantsFirst, int rollbackAfter) {
        return new RolloutConfig("move", "chat", "old", "new", steps, Duration.ofMinutes(5), tenantsFirst,
                RolloutConfig.Sticky.TENANT, Map.of(), RolloutConfig.Thresholds.DEFAULTS, 20, rollbackAfter, false);
    }

    private static final IntervalFigures CLEAN = new IntervalFigures(100, 0, 0, 100, 0, OptionalLong.empty(),
            OptionalLong.empty(), OptionalLong.empty(), 0);
    private static final IntervalFigures REFUSED = new IntervalFigures(100, 5, 0, 100, 0, OptionalLong.empty(),
            OptionalLong.empty(), OptionalLong.empty(), 0);
    private static final IntervalFigures QUIET = new IntervalFigures(3, 0, 0, 3, 0, OptionalLong.empty(),
            OptionalLong.empty(), OptionalLong.empty(), 0);

    private static Rollout started(List<Double> steps, int rollbackAfter) {
        Rollout r = new Rollout(config(steps, List.of(), rollbackAfter));
        r.start(0, 0, "ops");
        return r;
    }

    private static RolloutDecision interval(Rollout r, int n, IntervalFigures f) {
        return r.onInterval(n * INTERVAL, n, f, p -> Optional.empty());
    }

    @Test
    void aPendingRolloutSendsNothingAndStartingPutsItAtItsFirstStep() {
        Rollout r = new Rollout(config(List.of(1.0, 50.0, 100.0), List.of(), 2));
        assertThat(r.inForce().percent()).isZero();

        RolloutDecision d = r.start(0, 7, "ops");

        assertThat(d.action()).isEqualTo(Action.STARTED);
        assertThat(d.percentAfter()).isEqualTo(1.0);
        assertThat(r.status()).isEqualTo(Rollout.Status.RUNNING);
    }

    @Test
    void anIntervalIsDueOnlyOnceItsDurationHasPassed() {
        Rollout r = started(List.of(1.0, 100.0), 2);

        assertThat(r.intervalDue(INTERVAL - 1)).isFalse();
        assertThat(r.intervalDue(INTERVAL)).isTrue();
    }

    @Test
    void cleanIntervalsAdvanceOneStepEachAndTheLastCompletes() {
        Rollout r = started(List.of(1.0, 50.0, 100.0), 2);

        assertThat(interval(r, 1, CLEAN).action()).isEqualTo(Action.ADVANCED);
        assertThat(r.inForce().percent()).isEqualTo(50.0);
        assertThat(interval(r, 2, CLEAN).action()).isEqualTo(Action.ADVANCED);
        RolloutDecision done = interval(r, 3, CLEAN);

        assertThat(done.action()).isEqualTo(Action.COMPLETED);
        assertThat(r.status()).isEqualTo(Rollout.Status.COMPLETE);
        assertThat(r.inForce().percent()).isEqualTo(100.0);
        assertThat(r.intervalDue(10 * INTERVAL)).isFalse();
    }

    @Test
    void anInconclusiveIntervalHoldsTheStep() {
        Rollout r = started(List.of(1.0, 100.0), 2);

        RolloutDecision d = interval(r, 1, QUIET);

        assertThat(d.action()).isEqualTo(Action.HELD);
        assertThat(d.reason()).isEqualTo("inconclusive: 3 attempts on the target, 20 needed");
        assertThat(r.inForce().percent()).isEqualTo(1.0);
    }

    @Test
    void aTargetWithoutRoomForTheNextStepHolds() {
        Rollout r = started(List.of(10.0, 100.0), 2);

        RolloutDecision d = r.onInterval(INTERVAL, 1, CLEAN, p -> Optional.of("no room for " + p));

        assertThat(d.action()).isEqualTo(Action.HELD);
        assertThat(d.reason()).isEqualTo("no room: no room for 100.0");
        assertThat(r.stage()).isZero();
    }

    @Test
    void aBreachPausesAndTheConfiguredNumberOfFailedIntervalsRollsBack() {
        Rollout r = started(List.of(10.0, 100.0), 2);

        RolloutDecision paused = interval(r, 1, REFUSED);
        assertThat(paused.action()).isEqualTo(Action.PAUSED);
        assertThat(paused.reason()).isEqualTo("provider_429_rate 0.05 above 0.01 (failed interval 1 of 2)");
        assertThat(paused.figures()).contains(REFUSED);
        assertThat(r.inForce().percent()).isEqualTo(10.0);

        RolloutDecision back = interval(r, 2, REFUSED);
        assertThat(back.action()).isEqualTo(Action.ROLLED_BACK);
        assertThat(r.inForce().percent()).isZero();
        assertThat(r.intervalDue(10 * INTERVAL)).isFalse();
    }

    @Test
    void aBreachIsActedOnBeforeTheIntervalEndsAndAPassIsNot() {
        Rollout r = started(List.of(10.0, 100.0), 2);

        assertThat(r.breachedEarly(CLEAN)).isFalse();
        assertThat(r.breachedEarly(QUIET)).isFalse();
        assertThat(r.breachedEarly(REFUSED)).isTrue();
        assertThat(r.onInterval(INTERVAL / 3, 1, REFUSED, p -> Optional.empty()).action()).isEqualTo(Action.PAUSED);
    }

    @Test
    void aCleanIntervalResumesARolloutTheAnalysisPausedWithoutForgettingTheFailure() {
        Rollout r = started(List.of(10.0, 50.0, 100.0), 2);
        interval(r, 1, REFUSED);

        assertThat(interval(r, 2, CLEAN).action()).isEqualTo(Action.RESUMED);
        assertThat(r.stage()).isZero();
        assertThat(r.failedIntervals()).isEqualTo(1);
        assertThat(interval(r, 3, REFUSED).action()).isEqualTo(Action.ROLLED_BACK);
    }

    @Test
    void anOperatorsPauseHoldsThroughCleanIntervalsUntilResumed() {
        Rollout r = started(List.of(10.0, 100.0), 2);
        r.pause(1, "ops");

        assertThat(interval(r, 1, CLEAN).action()).isEqualTo(Action.HELD);
        assertThat(r.resume(INTERVAL + 5, 2, "ops").action()).isEqualTo(Action.RESUMED);
        assertThat(r.intervalDue(2 * INTERVAL)).isFalse();
        assertThat(r.intervalDue(2 * INTERVAL + 5)).isTrue();
    }

    @Test
    void theEmergencyRollbackReturnsEverythingToTheSourceAtOnce() {
        Rollout r = started(List.of(10.0, 100.0), 5);
        interval(r, 1, CLEAN);

        RolloutDecision d = r.rollback(9, "ops", "target answers badly");

        assertThat(d.action()).isEqualTo(Action.ROLLED_BACK);
        assertThat(d.reason()).isEqualTo("rolled back by ops: target answers badly");
        assertThat(d.stageBefore()).isEqualTo(1);
        assertThat(r.inForce().percent()).isZero();
    }

    @Test
    void anOperatorMayAdvanceAStepAtOnce() {
        Rollout r = started(List.of(10.0, 100.0), 2);

        assertThat(r.advance(1, 1, "ops").percentAfter()).isEqualTo(100.0);
        assertThat(r.advance(2, 2, "ops").action()).isEqualTo(Action.COMPLETED);
    }

    @Test
    void commandsThatDoNotFitTheStatusAreRefused() {
        Rollout r = new Rollout(config(List.of(100.0), List.of(), 2));

        assertThatThrownBy(() -> r.pause(0, "ops")).isInstanceOf(IllegalStateException.class)
                .hasMessage("rollout move is pending and cannot pause");
        assertThatThrownBy(() -> r.rollback(0, "ops", "x")).isInstanceOf(IllegalStateException.class);
        r.start(0, 0, "ops");
        assertThatThrownBy(() -> r.start(0, 0, "ops")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> r.resume(0, 0, "ops")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void everyDecisionIsInTheHistory() {
        Rollout r = started(List.of(10.0, 100.0), 2);
        interval(r, 1, QUIET);
        interval(r, 2, CLEAN);

        assertThat(r.history()).extracting(RolloutDecision::action)
                .containsExactly(Action.STARTED, Action.HELD, Action.ADVANCED);
    }
}
