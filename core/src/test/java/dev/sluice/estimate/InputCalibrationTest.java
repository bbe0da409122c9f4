package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.time.FakeClock;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class InputCalibrationTest {

    private static final EstimatorProfile CLAUDE = EstimatorProfile.of("claude", Tokenizer.CALIBRATED, false);
    private static final EstimatorProfile GPT = EstimatorProfile.of("gpt-4o", Tokenizer.O200K_BASE, true);
    /** Calibrated base count 1000: 3 priming + 3 framing + "user" 1 + 3972 ASCII chars / 4. */
    private static final PromptShape BASE_1000 =
            PromptShape.ofMessages(List.of(MessagePart.of("user", "a".repeat(3972))), OptionalInt.empty());

    private final TokenEstimator estimator = new TokenEstimator(EstimatorConfig.defaults(), new FakeClock());

    private void settle(EstimatorProfile profile, PromptShape prompt, long actualInput, int times) {
        for (int i = 0; i < times; i++) {
            TokenEstimate estimate = estimator.estimate(profile, "r", prompt);
            estimator.learn(profile, "r", estimate, new ActualTokens(actualInput, 100, 0));
        }
    }

    @Test
    void calibratedProfileStartsAtTheConservativePrior() {
        assertThat(estimator.estimate(CLAUDE, "r", BASE_1000).baseTokens()).isEqualTo(1000);
        assertThat(estimator.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(1150);
    }

    @Test
    void priorHoldsUntilTwentySamples() {
        settle(CLAUDE, BASE_1000, 1300, 19);
        assertThat(estimator.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(1150);
        settle(CLAUDE, BASE_1000, 1300, 1);
        assertThat(estimator.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(1300);
    }

    @Test
    void noisySettlementsConvergeToTheirMeanRatio() {
        for (int i = 0; i < 10; i++) {
            settle(CLAUDE, BASE_1000, 1200, 1);
            settle(CLAUDE, BASE_1000, 1400, 1);
        }
        EstimatorStats stats = estimator.stats(CLAUDE, "r");
        assertThat(stats.inputRatio()).isCloseTo(1.3, within(1e-9));
        assertThat(stats.ratioSamples()).isEqualTo(20);
        assertThat(estimator.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(1300);
    }

    @Test
    void aChangedRatioIsRelearnedExponentially() {
        settle(CLAUDE, BASE_1000, 1300, 20);
        settle(CLAUDE, BASE_1000, 1000, 20);
        // Each new sample weighs 0.05: 1.0 + 0.3 x 0.95^20
        assertThat(estimator.stats(CLAUDE, "r").inputRatio()).isCloseTo(1.0 + 0.3 * Math.pow(0.95, 20), within(1e-9));
        assertThat(estimator.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(1108);
    }

    @Test
    void ratioIsClampedToFourAbove() {
        settle(CLAUDE, BASE_1000, 10_000, 20);
        assertThat(estimator.stats(CLAUDE, "r").inputRatio()).isEqualTo(4.0);
        assertThat(estimator.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(4000);
    }

    @Test
    void ratioIsClampedToAQuarterBelow() {
        settle(CLAUDE, BASE_1000, 10, 20);
        assertThat(estimator.stats(CLAUDE, "r").inputRatio()).isEqualTo(0.25);
        assertThat(estimator.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(250);
    }

    @Test
    void tokenizerProfilesStartAtOneAndLearnTheirSmallCorrection() {
        var prompt = PromptShape.ofMessages(List.of(
                MessagePart.of("system", "You are a helpful assistant."),
                MessagePart.of("user", "What is the capital of France?")), OptionalInt.empty());
        assertThat(estimator.estimate(GPT, "r", prompt).inputTokens()).isEqualTo(24);
        settle(GPT, prompt, 25, 20);
        // 25 / 24 = 1.0417; 24 x 1.0417 rounds back to 25
        assertThat(estimator.stats(GPT, "r").inputRatio()).isCloseTo(25.0 / 24, within(1e-9));
        assertThat(estimator.estimate(GPT, "r", prompt).inputTokens()).isEqualTo(25);
    }

    @Test
    void ratiosArePerProfileAndSharedAcrossRoutes() {
        settle(CLAUDE, BASE_1000, 1300, 20);
        var other = EstimatorProfile.of("gemini", Tokenizer.CALIBRATED, true);
        assertThat(estimator.estimate(CLAUDE, "another-route", BASE_1000).inputTokens()).isEqualTo(1300);
        assertThat(estimator.estimate(other, "r", BASE_1000).inputTokens()).isEqualTo(1150);
    }

    @Test
    void aProfileThatChangesTokenizerStartsItsRatioAfresh() {
        settle(CLAUDE, BASE_1000, 1300, 20);
        var retokenized = EstimatorProfile.of("claude", Tokenizer.O200K_BASE, false);
        assertThat(estimator.stats(retokenized, "r").inputRatio()).isEqualTo(1.0);
        assertThat(estimator.stats(retokenized, "r").ratioSamples()).isZero();
    }

    @Test
    void settlementsWithoutInputTokensTeachNothing() {
        settle(CLAUDE, BASE_1000, 0, 20);
        assertThat(estimator.stats(CLAUDE, "r").ratioSamples()).isZero();
        assertThat(estimator.stats(CLAUDE, "r").inputRatio()).isEqualTo(1.15);
    }

    @Test
    void priorsAreConfigurable() {
        var config = EstimatorConfig.builder().calibratedPriorRatio(1.5).minRatioSamples(5).build();
        var custom = new TokenEstimator(config, new FakeClock());
        assertThat(custom.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(1500);
        for (int i = 0; i < 5; i++) {
            custom.learn(CLAUDE, "r", custom.estimate(CLAUDE, "r", BASE_1000), new ActualTokens(1100, 1, 0));
        }
        assertThat(custom.estimate(CLAUDE, "r", BASE_1000).inputTokens()).isEqualTo(1100);
    }
}
