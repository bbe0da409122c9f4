package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.limits.ShortWindow;
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

    // ---- a 429 naming a rate: the cap is the refill time of the window it names ----

    private static final long TEN_S = Duration.ofSeconds(10).toNanos();

    @Test
    void aDeploymentRateWithTheDefaultWindowIsPausedAtMostOneSecond() {
        Limit input = new Limit(Dimension.INPUT_TOKENS, 2_000_000, OptionalLong.empty());
        assertThat(CooldownPolicy.namedRateCapNanos(input, ScopeLevel.PROVIDER_DEPLOYMENT, TEN_S))
                .isEqualTo(1_000_000_000L);
    }

    @Test
    void aConfiguredWindowRefillsInItsLengthTimesItsBurst() {
        Limit rpm = Limit.windowed(Dimension.REQUESTS, 600, new ShortWindow(Duration.ofSeconds(2), 1.5));
        assertThat(CooldownPolicy.namedRateCapNanos(rpm, ScopeLevel.PROVIDER_DEPLOYMENT, TEN_S))
                .isEqualTo(3_000_000_000L);
    }

    @Test
    void aConfiguredBurstRefillsInBurstOverTheRate() {
        Limit rpm = Limit.of(Dimension.REQUESTS, 1_200, 50);
        assertThat(CooldownPolicy.namedRateCapNanos(rpm, ScopeLevel.PROVIDER_DEPLOYMENT, TEN_S))
                .isEqualTo(2_500_000_000L);
    }

    @Test
    void aMinuteDeepBucketIsPausedAtMostTheRateWindow() {
        Limit output = new Limit(Dimension.OUTPUT_TOKENS, 80_000, OptionalLong.empty());
        assertThat(CooldownPolicy.namedRateCapNanos(output, ScopeLevel.PROVIDER_DEPLOYMENT, TEN_S)).isEqualTo(TEN_S);
    }

    @Test
    void aWindowLongerThanTheRateWindowIsCutToIt() {
        Limit rpm = Limit.windowed(Dimension.REQUESTS, 600, ShortWindow.of(Duration.ofSeconds(30)));
        assertThat(CooldownPolicy.namedRateCapNanos(rpm, ScopeLevel.PROVIDER_DEPLOYMENT, TEN_S)).isEqualTo(TEN_S);
    }

    @Test
    void theNamedRatePauseIsTheHintCutToTheCapPlusJitter() {
        assertThat(CooldownPolicy.namedRatePauseNanos(OptionalLong.of(4_000), 1_000_000_000L, 0.5, c))
                .isEqualTo(1_050_000_000L);
        assertThat(CooldownPolicy.namedRatePauseNanos(OptionalLong.of(300), 1_000_000_000L, 0.0, c))
                .isEqualTo(300_000_000L);
        assertThat(CooldownPolicy.namedRatePauseNanos(OptionalLong.empty(), 2_500_000_000L, 0.0, c))
                .isEqualTo(1_000_000_000L);
    }
}
