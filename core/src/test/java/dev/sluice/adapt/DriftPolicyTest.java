package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DriftPolicyTest {

    private final CorrectionConfig c = CorrectionConfig.defaults();

    private DriftPolicy.State feed(DriftPolicy.State s, double... ratios) {
        for (double r : ratios) {
            s = DriftPolicy.next(s, r, c);
        }
        return s;
    }

    @Test
    void threeFiguresInARowBelowTheLimitAreAdopted() {
        DriftPolicy.State s = feed(DriftPolicy.State.initial(), 0.5, 0.5);
        assertThat(s.factor()).isEqualTo(1.0);
        assertThat(feed(s, 0.5).factor()).isEqualTo(0.5);
    }

    @Test
    void theLeastDrasticFigureOfTheStreakIsAdopted() {
        assertThat(feed(DriftPolicy.State.initial(), 0.4, 0.6, 0.5).factor()).isEqualTo(0.6);
    }

    @Test
    void anAgreeingFigureBreaksTheStreak() {
        assertThat(feed(DriftPolicy.State.initial(), 0.5, 0.5, 0.99, 0.5, 0.5).factor()).isEqualTo(1.0);
    }

    @Test
    void figuresWithinFivePercentAgree() {
        assertThat(feed(DriftPolicy.State.initial(), 0.96, 0.96, 0.96, 0.96).factor()).isEqualTo(1.0);
        assertThat(feed(DriftPolicy.State.initial(), 0.94, 0.94, 0.94).factor()).isEqualTo(0.94);
    }

    @Test
    void figuresAboveTheConfiguredLimitAreNeverAdopted() {
        assertThat(feed(DriftPolicy.State.initial(), 2.0, 2.0, 2.0, 2.0).factor()).isEqualTo(1.0);
    }

    @Test
    void aLimitThatComesBackIsAdoptedUpToTheConfiguredOne() {
        DriftPolicy.State cut = feed(DriftPolicy.State.initial(), 0.5, 0.5, 0.5);
        assertThat(feed(cut, 0.8, 0.9, 0.8).factor()).isEqualTo(0.8);
        assertThat(feed(cut, 1.5, 1.5, 1.5).factor()).isEqualTo(1.0);
    }

    @Test
    void aZeroLimitIsAdoptedAsTheSmallestPositiveFactor() {
        assertThat(feed(DriftPolicy.State.initial(), 0, 0, 0).factor()).isEqualTo(DriftPolicy.MIN_FACTOR);
    }
}
