package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MultiplierPolicyTest {

    private final MultiplierConfig c = MultiplierConfig.defaults();

    @Test
    void eachCutMultipliesByPointSixFiveDownToTheFloor() {
        double m = 1.0;
        m = MultiplierPolicy.decrease(m, c);
        assertThat(m).isCloseTo(0.65, within(1e-12));
        m = MultiplierPolicy.decrease(m, c);
        assertThat(m).isCloseTo(0.4225, within(1e-12));
        m = MultiplierPolicy.decrease(m, c);
        assertThat(m).isCloseTo(0.274625, within(1e-12));
        m = MultiplierPolicy.decrease(m, c);
        assertThat(m).isEqualTo(0.20);
        assertThat(MultiplierPolicy.decrease(m, c)).isEqualTo(0.20);
    }

    @Test
    void eachSuccessAddsPointZeroThreeUpToTheCeiling() {
        assertThat(MultiplierPolicy.increase(0.65, 1.0, c)).isCloseTo(0.68, within(1e-12));
        assertThat(MultiplierPolicy.increase(0.99, 1.0, c)).isEqualTo(1.0);
        assertThat(MultiplierPolicy.increase(0.49, 0.5, c)).isEqualTo(0.5);
    }

    @Test
    void eachCleanSecondAddsPointZeroOneUpToTheCeilingAndNeverLowersTheMultiplier() {
        long second = 1_000_000_000L;
        assertThat(MultiplierPolicy.recoverByTime(0.65, 1.0, 10 * second, 0, c)).isCloseTo(0.75, within(1e-12));
        assertThat(MultiplierPolicy.recoverByTime(0.65, 1.0, second / 2, 0, c)).isCloseTo(0.655, within(1e-12));
        assertThat(MultiplierPolicy.recoverByTime(0.65, 1.0, 60 * second, 0, c)).isEqualTo(1.0);
        assertThat(MultiplierPolicy.recoverByTime(0.65, 0.70, 10 * second, 0, c)).isEqualTo(0.70);
        assertThat(MultiplierPolicy.recoverByTime(0.80, 0.70, 10 * second, 0, c)).isEqualTo(0.80);
        assertThat(MultiplierPolicy.recoverByTime(0.65, 1.0, 0, 0, c)).isEqualTo(0.65);
    }

    @Test
    void eachSlowdownHalvesTheClimbByCleanTimeDownToASixteenth() {
        long second = 1_000_000_000L;
        // m + 0.01 x 10 s / 2^k
        assertThat(MultiplierPolicy.recoverByTime(0.5, 1.0, 10 * second, 1, c)).isCloseTo(0.55, within(1e-12));
        assertThat(MultiplierPolicy.recoverByTime(0.5, 1.0, 10 * second, 2, c)).isCloseTo(0.525, within(1e-12));
        assertThat(MultiplierPolicy.recoverByTime(0.5, 1.0, 10 * second, 4, c)).isCloseTo(0.50625, within(1e-12));
        assertThat(MultiplierPolicy.recoverByTime(0.5, 1.0, 10 * second, 7, c)).isCloseTo(0.50625, within(1e-12));
        assertThat(MultiplierPolicy.recoverByTime(0.5, 0.52, 10 * second, 1, c)).isEqualTo(0.52);
    }

    @Test
    void aCutThatEndsAClimbByCleanTimeSlowsTheNextClimbAndOtherCutsDoNot() {
        assertThat(MultiplierPolicy.slowdownsAfterCut(0, true)).isEqualTo(1);
        assertThat(MultiplierPolicy.slowdownsAfterCut(3, true)).isEqualTo(4);
        assertThat(MultiplierPolicy.slowdownsAfterCut(4, true)).isEqualTo(4);
        assertThat(MultiplierPolicy.slowdownsAfterCut(2, false)).isEqualTo(2);
        assertThat(MultiplierPolicy.slowdownsAfterCut(0, false)).isEqualTo(0);
    }

    @Test
    void sixteenRecoveryWaitsOfCleanTimeForgetTheSlowdowns() {
        long second = 1_000_000_000L;
        // 16 x clean_recovery_after (10 s) = 160 s
        assertThat(MultiplierPolicy.slowdownsAfterClean(3, 159 * second, c)).isEqualTo(3);
        assertThat(MultiplierPolicy.slowdownsAfterClean(3, 160 * second, c)).isEqualTo(0);
        MultiplierConfig quick = new MultiplierConfig(0.65, 0.03, 0.2, false, java.time.Duration.ofSeconds(2), 0.01);
        assertThat(MultiplierPolicy.slowdownsAfterClean(2, 31 * second, quick)).isEqualTo(2);
        assertThat(MultiplierPolicy.slowdownsAfterClean(2, 32 * second, quick)).isEqualTo(0);
    }

    @Test
    void theHeaderlessCeilingIsTheSuccessfulShareOfTheRateSent() {
        // Sent at 0.8 of the configured rate, 60 of 100 answers succeeded: the provider absorbs 0.48.
        assertThat(MultiplierPolicy.ceilingEstimate(0.8, 60, 40, 0.2)).isCloseTo(0.48, within(1e-12));
        assertThat(MultiplierPolicy.ceilingEstimate(0.8, 10, 90, 0.2)).isEqualTo(0.2);
        assertThat(MultiplierPolicy.ceilingEstimate(0.8, 0, 0, 0.2)).isEqualTo(1.0);
    }

    @Test
    void theCeilingRecoversFivePercentPerCleanMinute() {
        assertThat(MultiplierPolicy.recoverCeiling(0.5, 60_000_000_000L, 0.05)).isCloseTo(0.55, within(1e-12));
        assertThat(MultiplierPolicy.recoverCeiling(0.5, 30_000_000_000L, 0.05)).isCloseTo(0.525, within(1e-12));
        assertThat(MultiplierPolicy.recoverCeiling(0.99, 60_000_000_000L, 0.05)).isEqualTo(1.0);
    }

    @Test
    void aNewBaseKeepsTheAbsoluteRate() {
        // 0.3 of 1200 rpm = 360 rpm = 0.6 of an adopted 600 rpm.
        assertThat(MultiplierPolicy.rebase(0.3, 1.0, 0.5)).isCloseTo(0.6, within(1e-12));
        assertThat(MultiplierPolicy.rebase(0.65, 1.0, 0.5)).isEqualTo(1.0);
    }
}
