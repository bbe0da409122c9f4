package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.time.FakeClock;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class CacheReadTest {

    /** Anthropic: cache reads do not count against ITPM. */
    private static final EstimatorProfile CLAUDE = EstimatorProfile.of("claude", Tokenizer.CALIBRATED, false);
    /** OpenAI: cached tokens are part of the counted prompt. */
    private static final EstimatorProfile GPT = EstimatorProfile.of("gpt-4o", Tokenizer.O200K_BASE, true);
    /** Calibrated base count 1000, 1150 at the prior ratio; o200k count 1000 + 7 framing. */
    private static final PromptShape PROMPT =
            PromptShape.ofMessages(List.of(MessagePart.of("user", "a".repeat(3972))), OptionalInt.empty());

    private final TokenEstimator estimator = new TokenEstimator(EstimatorConfig.defaults(), new FakeClock());

    private void settle(EstimatorProfile profile, String route, long input, long cacheRead, int times) {
        for (int i = 0; i < times; i++) {
            // The ratio is learned too; the actual input equals the estimate so it stays put.
            TokenEstimate estimate = estimator.estimate(profile, route, PROMPT);
            estimator.learn(profile, route, estimate, new ActualTokens(input, 10, cacheRead));
        }
    }

    @Test
    void expectedCacheReadsAreSubtractedWhereTheyDoNotCountAgainstTheInputLimit() {
        settle(CLAUDE, "r", 1150, 690, 20);
        TokenEstimate estimate = estimator.estimate(CLAUDE, "r", PROMPT);
        assertThat(estimate.promptTokens()).isEqualTo(1150);
        assertThat(estimate.expectedCacheReadTokens()).isEqualTo(690);
        assertThat(estimate.inputTokens()).isEqualTo(460);
    }

    @Test
    void expectedCacheReadsAreReportedButNotSubtractedWhereTheyCount() {
        long promptTokens = estimator.estimate(GPT, "r", PROMPT).promptTokens();
        settle(GPT, "r", promptTokens, promptTokens / 2, 20);
        TokenEstimate estimate = estimator.estimate(GPT, "r", PROMPT);
        assertThat(estimate.expectedCacheReadTokens()).isEqualTo(promptTokens / 2);
        assertThat(estimate.inputTokens()).isEqualTo(promptTokens);
    }

    @Test
    void noCacheReadIsExpectedBeforeTwentySamples() {
        settle(CLAUDE, "r", 1150, 690, 19);
        TokenEstimate estimate = estimator.estimate(CLAUDE, "r", PROMPT);
        assertThat(estimate.expectedCacheReadTokens()).isZero();
        assertThat(estimate.inputTokens()).isEqualTo(1150);
        assertThat(estimator.stats(CLAUDE, "r").cachedFraction()).isZero();
        assertThat(estimator.stats(CLAUDE, "r").cacheSamples()).isEqualTo(19);
    }

    @Test
    void theCachedFractionIsLearnedPerRoute() {
        settle(CLAUDE, "with-system-prompt", 1150, 690, 20);
        assertThat(estimator.stats(CLAUDE, "with-system-prompt").cachedFraction()).isCloseTo(0.6, within(1e-12));
        assertThat(estimator.estimate(CLAUDE, "one-off", PROMPT).inputTokens()).isEqualTo(1150);
    }

    @Test
    void theExpectedCacheReadIsRoundedDownSoTheInputChargeRoundsUp() {
        // Cached fractions 0 x 10, 1 x 5, 0 x 5: mean 0.25; 1150 x 0.25 = 287.5
        settle(CLAUDE, "r", 1150, 0, 10);
        settle(CLAUDE, "r", 1150, 1150, 5);
        settle(CLAUDE, "r", 1150, 0, 5);
        assertThat(estimator.stats(CLAUDE, "r").cachedFraction()).isCloseTo(0.25, within(1e-12));
        TokenEstimate estimate = estimator.estimate(CLAUDE, "r", PROMPT);
        assertThat(estimate.expectedCacheReadTokens()).isEqualTo(287);
        assertThat(estimate.inputTokens()).isEqualTo(863);
    }
}
