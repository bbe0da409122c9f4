package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CooldownPolicyTest {

    private final CooldownConfig c = CooldownConfig.defaults();

    @Test
    void theProvidersDelayPlusUpToTenPercentJitter() {
        assertThat(CooldownPolicy.pauseNanos(OptionalLong.of(4_000), 0.0, c)).isEqualTo(4_000_000_000L);
        assertThat(CooldownPolicy.pauseNanos(OptionalLong.of(4_000), 0.5, c)).isEqualTo(4_200_000_000L);
        assertThat(CooldownPolicy.pauseNanos(OptionalLong.of(4_000), 0.999, c)).isEqualTo(4_399_600_000L);
    }

    @Test
    void noDelayGivenPausesForTheOneSecondFloor() {
        assertThat(CooldownPolicy.pauseNanos(OptionalLong.empty(), 0.5, c)).isEqualTo(1_050_000_000L);
    }

    @Test
    void aZeroDelayIsHonoured() {
        assertThat(CooldownPolicy.pauseNanos(OptionalLong.of(0), 0.5, c)).isZero();
    }

    @Test
    void noPauseIsLongerThanFifteenMinutes() {
        long day = Duration.ofHours(24).toMillis();
        assertThat(CooldownPolicy.pauseNanos(OptionalLong.of(day), 0.9, c)).isEqualTo(Duration.ofMinutes(15).toNanos());
    }

    @Test
    void anExhaustedQuotaWithoutDelayPausesFiveMinutes() {
        assertThat(CooldownPolicy.exhaustedPauseNanos(OptionalLong.empty(), 0.0, c))
                .isEqualTo(Duration.ofMinutes(5).toNanos());
        assertThat(CooldownPolicy.exhaustedPauseNanos(OptionalLong.of(30_000), 0.0, c)).isEqualTo(30_000_000_000L);
    }
}
