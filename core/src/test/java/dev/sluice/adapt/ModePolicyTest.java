package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.ModePolicy.Readings;
import org.junit.jupiter.api.Test;

class ModePolicyTest {

    private static final long S = 1_000_000_000L;
    private static final Readings CALM = new Readings(1.0, 0, 0, 1.0);

    private final ModeConfig c = ModeConfig.defaults();

    @Test
    void calmReadingsKeepNormal() {
        assertThat(ModePolicy.next(Mode.NORMAL, 0, CALM, 100 * S, c)).isEmpty();
    }

    @Test
    void pressureJumpsStraightToTheMostDefensiveModeItCallsFor() {
        assertThat(ModePolicy.next(Mode.NORMAL, 0, new Readings(0.27, 0, 0, 1.0), S, c))
                .hasValue(new ModePolicy.Change(Mode.LOAD_SHEDDING, "multiplier 0.27 < 0.30"));
        assertThat(ModePolicy.next(Mode.NORMAL, 0, new Readings(1.0, 0.12, 0, 1.0), S, c))
                .hasValue(new ModePolicy.Change(Mode.BROWNOUT, "429 ratio 0.120 >= 0.100"));
        assertThat(ModePolicy.next(Mode.CAUTION, 0, new Readings(1.0, 0, 0.85, 1.0), S, c))
                .as("queue pressure alone browns out at most").hasValue(new ModePolicy.Change(Mode.BROWNOUT,
                        "queue pressure 0.85 >= 0.50"));
        assertThat(ModePolicy.next(Mode.NORMAL, 0, new Readings(1.0, 0, 0, 1.6), S, c))
                .hasValue(new ModePolicy.Change(Mode.CAUTION, "latency p95 x1.60 >= 1.50"));
    }

    @Test
    void goingUpNeedsNoDwell() {
        assertThat(ModePolicy.next(Mode.BROWNOUT, S, new Readings(1.0, 0.30, 0, 1.0), S, c))
                .map(ModePolicy.Change::to).hasValue(Mode.LOAD_SHEDDING);
    }

    @Test
    void latencyAloneNeverSheds() {
        assertThat(ModePolicy.next(Mode.BROWNOUT, 0, new Readings(1.0, 0, 0, 50.0), S, c)).isEmpty();
    }

    @Test
    void leavingWaitsForFifteenSecondsInTheMode() {
        assertThat(ModePolicy.next(Mode.BROWNOUT, 0, CALM, 14 * S, c)).isEmpty();
        assertThat(ModePolicy.next(Mode.BROWNOUT, 0, CALM, 15 * S, c)).map(ModePolicy.Change::to)
                .hasValue(Mode.CAUTION);
    }

    @Test
    void leavingGoesDownOneModeAtATime() {
        assertThat(ModePolicy.next(Mode.LOAD_SHEDDING, 0, CALM, 60 * S, c)).hasValue(new ModePolicy.Change(
                Mode.BROWNOUT, "calm for 60 s: multiplier 1.00, 429 ratio 0.000, queue pressure 0.00, latency x1.00"));
    }

    @Test
    void aSignalBetweenExitAndEnterHoldsTheMode() {
        // 0.07 is below brownout's enter (0.10) but not below its exit (0.05): hysteresis holds brownout.
        Readings hovering = new Readings(1.0, 0.07, 0, 1.0);
        assertThat(ModePolicy.next(Mode.BROWNOUT, 0, hovering, 60 * S, c)).isEmpty();
        assertThat(ModePolicy.next(Mode.NORMAL, 0, hovering, 60 * S, c)).map(ModePolicy.Change::to)
                .hasValue(Mode.CAUTION);
        assertThat(ModePolicy.next(Mode.BROWNOUT, 0, new Readings(1.0, 0.04, 0, 1.0), 60 * S, c))
                .map(ModePolicy.Change::to).hasValue(Mode.CAUTION);
    }

    @Test
    void theMultiplierMustClimbPastItsExitToLeaveShedding() {
        assertThat(ModePolicy.next(Mode.LOAD_SHEDDING, 0, new Readings(0.40, 0, 0, 1.0), 60 * S, c)).isEmpty();
        assertThat(ModePolicy.next(Mode.LOAD_SHEDDING, 0, new Readings(0.46, 0, 0, 1.0), 60 * S, c))
                .map(ModePolicy.Change::to).hasValue(Mode.BROWNOUT);
    }
}
