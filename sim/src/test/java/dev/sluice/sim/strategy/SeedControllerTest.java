package dev.sluice.sim.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The reference controller's rules, with the numbers of issue 5 item 3. */
class SeedControllerTest {

    @Test
    void startsAtTheRampCapOfItsLimits() {
        SeedController c = new SeedController(120, 120_000);
        // 120 x 0.25 = 30 requests and 30,000 tokens at first.
        for (int i = 0; i < 30; i++) {
            assertThat(c.evaluate("interactive", 1_000, 30, 1, 0).action()).isEqualTo(SeedController.Action.ADMIT);
        }
        SeedController.Verdict v = c.evaluate("interactive", 1_000, 30, 1, 0);
        assertThat(v.action()).isEqualTo(SeedController.Action.DEFER);
        assertThat(v.waitSeconds()).isEqualTo(1.5);
        assertThat(v.reason()).isEqualTo("token_bucket_burst_cap");
    }

    @Test
    void refillsAtLimitPerMinuteTimesTheSmallerOfMultiplierAndRampCap() {
        SeedController c = new SeedController(60, 1_000_000, 0.5);
        c.evaluate("batch", 0, 100, 0, 0);
        for (int i = 0; i < 29; i++) {
            c.evaluate("batch", 0, 100, 0, 0);
        }
        assertThat(c.evaluate("batch", 0, 100, 0, 0).action()).isEqualTo(SeedController.Action.DEFER);
        // 60/60 x 0.5 = 0.5 requests per second: two seconds give one.
        assertThat(c.evaluate("batch", 0, 100, 0, 2.0).action()).isEqualTo(SeedController.Action.ADMIT);
    }

    @Test
    void a429OpensACooldownAndCutsTheMultiplier() {
        SeedController c = new SeedController(120, 120_000, 1.0);
        c.recordOutcome(429, 4, 100);
        assertThat(c.multiplier()).isEqualTo(0.65);
        SeedController.Verdict v = c.evaluate("interactive", 10, 30, 1, 101);
        assertThat(v.action()).isEqualTo(SeedController.Action.SHED);
        assertThat(v.reason()).isEqualTo("active_retry_after_cooldown");
        assertThat(v.waitSeconds()).isEqualTo(3.25);
        // A critical request whose deadline covers the wait is deferred instead.
        assertThat(c.evaluate("critical", 10, 30, 1, 101).action()).isEqualTo(SeedController.Action.DEFER);
        // Without Retry-After the cooldown is 2 s + 0.25 s.
        SeedController d = new SeedController(120, 120_000, 1.0);
        d.recordOutcome(429, 0, 10);
        assertThat(d.evaluate("critical", 10, 30, 1, 10).waitSeconds()).isEqualTo(2.25);
    }

    @Test
    void multiplierFloorsAtTwentyPercentAndClimbsByThreeHundredths() {
        SeedController c = new SeedController(120, 120_000, 1.0);
        for (int i = 0; i < 10; i++) {
            c.recordOutcome(429, 0, i);
        }
        assertThat(c.multiplier()).isEqualTo(0.20);
        c.recordOutcome(200, 0, 20);
        assertThat(c.multiplier()).isEqualTo(0.23);
    }

    @Test
    void successRaisesTheRampCapByFiveHundredthsUpToOne() {
        SeedController c = new SeedController(120, 120_000, 0.25);
        c.recordOutcome(200, 0, 1);
        assertThat(c.rampCap()).isEqualTo(0.30);
        for (int i = 0; i < 30; i++) {
            c.recordOutcome(200, 0, 2 + i);
        }
        assertThat(c.rampCap()).isEqualTo(1.0);
        assertThat(c.mode()).isEqualTo(SeedController.Mode.NORMAL);
    }

    @Test
    void modesFollowTheMultiplierAndRampCap() {
        SeedController c = new SeedController(120, 120_000, 1.0);
        assertThat(c.mode()).isEqualTo(SeedController.Mode.NORMAL);
        c.recordOutcome(429, 0, 0);
        assertThat(c.mode()).isEqualTo(SeedController.Mode.CAUTION);
        c.recordOutcome(429, 0, 0);
        assertThat(c.multiplier()).isEqualTo(0.4225);
        assertThat(c.mode()).isEqualTo(SeedController.Mode.BROWNOUT);
        c.recordOutcome(429, 0, 0);
        assertThat(c.mode()).isEqualTo(SeedController.Mode.LOAD_SHEDDING);
        assertThat(new SeedController(120, 120_000, 0.5).mode()).isEqualTo(SeedController.Mode.CAUTION);
    }

    @Test
    void shedsWhatItsModeExcludesOnceTheCooldownIsOver() {
        SeedController c = new SeedController(120, 120_000, 1.0);
        c.recordOutcome(429, 0, 0);
        c.recordOutcome(429, 0, 0);
        SeedController.Verdict bg = c.evaluate("background", 10, 60, 1, 10);
        assertThat(bg.action()).isEqualTo(SeedController.Action.SHED);
        assertThat(bg.reason()).isEqualTo("background_paused_in_brownout");
        assertThat(bg.waitSeconds()).isEqualTo(10.0);
        assertThat(c.evaluate("batch", 10, 60, 1, 10).action()).isEqualTo(SeedController.Action.ADMIT_BROWNOUT);
        c.recordOutcome(429, 0, 10);
        SeedController.Verdict shed = c.evaluate("batch", 10, 60, 1, 20);
        assertThat(shed.reason()).isEqualTo("non_critical_shed_under_pressure");
        assertThat(shed.waitSeconds()).isEqualTo(5.0);
        assertThat(c.evaluate("critical", 10, 60, 1, 20).action()).isEqualTo(SeedController.Action.ADMIT);
    }

    @Test
    void shedsWhenTheDeadlineCannotCoverTheMinimumExecutionTime() {
        SeedController.Verdict v = new SeedController(120, 120_000).evaluate("critical", 10, 2.0, 3.0, 0);
        assertThat(v.action()).isEqualTo(SeedController.Action.SHED);
        assertThat(v.reason()).isEqualTo("deadline_budget_insufficient");
    }
}
