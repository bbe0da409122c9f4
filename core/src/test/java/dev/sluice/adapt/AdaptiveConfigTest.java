package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdaptiveConfigTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        AdaptiveConfig d = AdaptiveConfig.defaults();
        assertThat(d.multiplier()).isEqualTo(new MultiplierConfig(0.65, 0.03, 0.20, false));
        assertThat(d.cooldown().floor()).isEqualTo(Duration.ofSeconds(1));
        assertThat(d.modes().brownoutMaxTokensFactor()).isEqualTo(0.5);
        assertThat(d.modes().pausedInBrownout()).containsExactly(TrafficClass.BACKGROUND);
        assertThat(d.modes().servedWhileShedding()).containsExactly(TrafficClass.CRITICAL);
        assertThat(d.ramp().stages()).containsExactly(0.10, 0.25, 0.50, 1.00);
        assertThat(d.clientThrottle().enabled()).isFalse();
        assertThat(d.clientThrottle().k()).isEqualTo(2.0);
    }

    @Test
    void multiplierFieldsSayWhatIsExpected() {
        assertThatThrownBy(() -> new MultiplierConfig(1.2, 0.03, 0.2, false)).isInstanceOf(ConfigException.class)
                .hasMessage("decrease: 1.2 (expected: in (0, 1))");
        assertThatThrownBy(() -> new MultiplierConfig(0.65, 0, 0.2, false))
                .hasMessage("increase_per_success: 0.0 (expected: in (0, 1])");
        assertThatThrownBy(() -> new MultiplierConfig(0.65, 0.03, -0.1, false))
                .hasMessage("floor: -0.1 (expected: in (0, 1])");
    }

    @Test
    void cooldownFieldsSayWhatIsExpected() {
        assertThatThrownBy(() -> new CooldownConfig(Duration.ofMillis(-5), 0.1, Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(10))).hasMessage("floor: PT-0.005S (expected: >= 0)");
        assertThatThrownBy(() -> new CooldownConfig(Duration.ofSeconds(2), 0.1, Duration.ofSeconds(1),
                Duration.ofMinutes(5), Duration.ofSeconds(10))).hasMessage("max: PT1S (expected: > 0 and >= floor PT2S)");
        assertThatThrownBy(() -> new CooldownConfig(Duration.ofSeconds(1), 1.5, Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(10))).hasMessage("jitter_ratio: 1.5 (expected: in [0, 1])");
    }

    @Test
    void correctionFieldsSayWhatIsExpected() {
        assertThatThrownBy(() -> new CorrectionConfig(true, true, 0.05, 0, Map.of()))
                .hasMessage("drift_confirmations: 0 (expected: >= 1)");
        assertThatThrownBy(() -> new CorrectionConfig(true, true, 0.05, 3,
                Map.of(Dimension.CONCURRENT_REQUESTS, Duration.ofSeconds(10))))
                .hasMessage("reported_windows.concurrency: gauge (expected: a rate (rpm, input_tpm, output_tpm, tpm))");
        assertThat(new CorrectionConfig(true, true, 0.05, 3, Map.of(Dimension.REQUESTS, Duration.ofSeconds(10)))
                .reportedWindow(Dimension.REQUESTS)).isEqualTo(Duration.ofSeconds(10));
        assertThat(CorrectionConfig.defaults().reportedWindow(Dimension.TOTAL_TOKENS)).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void modeThresholdsMustLeaveHysteresis() {
        assertThatThrownBy(() -> ModeTrigger.above(new ModeTrigger.Levels(0.02, 0.10, 0.25),
                new ModeTrigger.Levels(0.01, 0.12, 0.15)))
                .hasMessage("exit.brownout: 0.12 (expected: < 0.1 (the calm side of enter.brownout))");
        assertThatThrownBy(() -> ModeTrigger.below(new ModeTrigger.Levels(0.85, 0.55, 0.30),
                new ModeTrigger.Levels(0.95, 0.70, 0.30)))
                .hasMessage("exit.shed: 0.3 (expected: > 0.3 (the calm side of enter.shed))");
        assertThatThrownBy(() -> ModeTrigger.above(new ModeTrigger.Levels(0.5, 0.10, 0.25),
                new ModeTrigger.Levels(0.01, 0.05, 0.15)))
                .hasMessage("enter: Levels[caution=0.5, brownout=0.1, shed=0.25] (expected: caution <= brownout <= shed)");
    }

    @Test
    void criticalWorkIsNeverPausedOrShed() {
        ModeConfig d = ModeConfig.defaults();
        assertThatThrownBy(() -> new ModeConfig(d.multiplier(), d.limitedRatio(), d.queuePressure(), d.latencyRatio(),
                d.minDwell(), 0.5, EnumSet.of(TrafficClass.CRITICAL), d.servedWhileShedding(),
                d.queuePressureClasses(), Optional.empty(), d.minRetryAfter()))
                .hasMessage("paused_in_brownout: [CRITICAL] (expected: no critical (critical work is never paused))");
        assertThatThrownBy(() -> new ModeConfig(d.multiplier(), d.limitedRatio(), d.queuePressure(), d.latencyRatio(),
                d.minDwell(), 0.5, d.pausedInBrownout(), EnumSet.of(TrafficClass.INTERACTIVE),
                d.queuePressureClasses(), Optional.empty(), d.minRetryAfter()))
                .hasMessage("served_while_shedding: [INTERACTIVE] (expected: critical among them (critical work is never shed))");
        assertThatThrownBy(() -> new ModeConfig(d.multiplier(), d.limitedRatio(), d.queuePressure(), d.latencyRatio(),
                d.minDwell(), 1.5, d.pausedInBrownout(), d.servedWhileShedding(), d.queuePressureClasses(),
                Optional.empty(), d.minRetryAfter()))
                .hasMessage("brownout_max_tokens_factor: 1.5 (expected: in (0, 1])");
    }

    @Test
    void throttleKMustBeAtLeastOne() {
        assertThatThrownBy(() -> new ClientThrottleConfig(true, 0.5, Duration.ofMinutes(2), EnumSet.noneOf(TrafficClass.class)))
                .hasMessage("k: 0.5 (expected: >= 1)");
    }

    @Test
    void windowFieldsSayWhatIsExpected() {
        assertThatThrownBy(() -> new WindowConfig(Duration.ofSeconds(30), 0, 20))
                .hasMessage("slots: 0 (expected: in [1, 1000])");
        assertThatThrownBy(() -> new HeaderlessConfig(Duration.ZERO, 0.95, 0.05, 0.01))
                .hasMessage("header_memory: PT0S (expected: > 0)");
    }
}
