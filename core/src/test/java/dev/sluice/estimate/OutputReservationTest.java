package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class OutputReservationTest {

    private static final EstimatorProfile GPT = EstimatorProfile.of("gpt-4o", Tokenizer.O200K_BASE, true);
    private static final String ROUTE = "gpt-4o/interactive";

    private final FakeClock clock = new FakeClock();
    private final TokenEstimator estimator = new TokenEstimator(EstimatorConfig.defaults(), clock);

    private static PromptShape prompt(OptionalInt maxTokens) {
        return PromptShape.ofMessages(List.of(MessagePart.of("user", "Hello, world!")), maxTokens);
    }

    private long outputFor(EstimatorProfile profile, String route, OptionalInt maxTokens) {
        return estimator.estimate(profile, route, prompt(maxTokens)).outputTokens();
    }

    private void settleOutputs(TokenEstimator target, String route, long... outputs) {
        for (long output : outputs) {
            TokenEstimate estimate = target.estimate(GPT, route, prompt(OptionalInt.empty()));
            target.learn(GPT, route, estimate, new ActualTokens(10, output, 0));
        }
    }

    private static long[] repeat(long value, int times) {
        long[] values = new long[times];
        Arrays.fill(values, value);
        return values;
    }

    /** 10, 20, ..., 1000: p50 500 and p95 950, each rounded up to the histogram's 1% bucket. */
    private static long[] tensToOneThousand() {
        long[] values = new long[100];
        for (int i = 0; i < 100; i++) {
            values[i] = 10L * (i + 1);
        }
        return values;
    }

    @Test
    void withoutHistoryReservesMaxTokensCappedAt1024() {
        assertThat(outputFor(GPT, ROUTE, OptionalInt.of(500))).isEqualTo(500);
        assertThat(outputFor(GPT, ROUTE, OptionalInt.of(8000))).isEqualTo(1024);
    }

    @Test
    void withoutMaxTokensTheProfileDefaultIsTheCeiling() {
        assertThat(outputFor(GPT, ROUTE, OptionalInt.empty())).isEqualTo(1024);
        var shortAnswers = new EstimatorProfile("gpt-4o", Tokenizer.O200K_BASE, true, 512);
        assertThat(outputFor(shortAnswers, ROUTE, OptionalInt.empty())).isEqualTo(512);
    }

    @Test
    void coldStartHoldsUntilTwentySamples() {
        settleOutputs(estimator, ROUTE, repeat(200, 19));
        assertThat(outputFor(GPT, ROUTE, OptionalInt.of(8000))).isEqualTo(1024);
        settleOutputs(estimator, ROUTE, 200);
        assertThat(outputFor(GPT, ROUTE, OptionalInt.of(8000))).isEqualTo(200);
    }

    @Test
    void reservesTheRoutesP95() {
        settleOutputs(estimator, ROUTE, tensToOneThousand());
        assertThat(outputFor(GPT, ROUTE, OptionalInt.of(8000))).isEqualTo(951);
        assertThat(outputFor(GPT, ROUTE, OptionalInt.empty())).isEqualTo(951);
        EstimatorStats stats = estimator.stats(GPT, ROUTE);
        assertThat(stats.outputSamples()).isEqualTo(100);
        assertThat(stats.outputP50()).hasValue(501);
        assertThat(stats.outputP95()).hasValue(951);
    }

    @Test
    void maxTokensCapsTheP95() {
        settleOutputs(estimator, ROUTE, tensToOneThousand());
        assertThat(outputFor(GPT, ROUTE, OptionalInt.of(900))).isEqualTo(900);
    }

    @Test
    void histogramIsExactBelow256Tokens() {
        long[] oneToHundred = new long[100];
        for (int i = 0; i < 100; i++) {
            oneToHundred[i] = i + 1;
        }
        settleOutputs(estimator, ROUTE, oneToHundred);
        assertThat(outputFor(GPT, ROUTE, OptionalInt.empty())).isEqualTo(95);
    }

    @Test
    void historyIsPerRoute() {
        settleOutputs(estimator, ROUTE, repeat(200, 20));
        assertThat(outputFor(GPT, "gpt-4o/batch", OptionalInt.empty())).isEqualTo(1024);
        var otherProfile = EstimatorProfile.of("gpt-4.1", Tokenizer.O200K_BASE, true);
        assertThat(outputFor(otherProfile, ROUTE, OptionalInt.empty())).isEqualTo(1024);
    }

    @Test
    void aRouteThatChangesIsRelearnedWithinTwoWindowsOfSamples() {
        var windowed = new TokenEstimator(EstimatorConfig.builder().outputWindowSamples(100).build(), clock);
        settleOutputs(windowed, ROUTE, repeat(1000, 100));
        settleOutputs(windowed, ROUTE, repeat(50, 99));
        // The full old window is still in view: 100 x ~1000 and 99 x 50.
        assertThat(windowed.estimate(GPT, ROUTE, prompt(OptionalInt.empty())).outputTokens()).isEqualTo(1003);
        settleOutputs(windowed, ROUTE, 50);
        // The new window is full and the old one retired.
        assertThat(windowed.estimate(GPT, ROUTE, prompt(OptionalInt.empty())).outputTokens()).isEqualTo(50);
        assertThat(windowed.stats(GPT, ROUTE).outputSamples()).isEqualTo(100);
    }

    @Test
    void aWindowOlderThanTheWindowAgeIsRetiredOnTheNextRead() {
        var aged = new TokenEstimator(EstimatorConfig.builder().outputWindowAge(Duration.ofMinutes(10)).build(), clock);
        settleOutputs(aged, ROUTE, repeat(200, 20));
        clock.advance(Duration.ofMinutes(10));
        // Retired into the previous window: still in view.
        assertThat(aged.estimate(GPT, ROUTE, prompt(OptionalInt.empty())).outputTokens()).isEqualTo(200);
        clock.advance(Duration.ofMinutes(10));
        // Two window ages without traffic: the route starts cold again.
        assertThat(aged.estimate(GPT, ROUTE, prompt(OptionalInt.empty())).outputTokens()).isEqualTo(1024);
        assertThat(aged.stats(GPT, ROUTE).outputP95()).isEmpty();
    }

    @Test
    void aRouteQuietForTwoWindowAgesForgetsEverythingAtOnce() {
        var aged = new TokenEstimator(EstimatorConfig.builder().outputWindowAge(Duration.ofMinutes(10)).build(), clock);
        settleOutputs(aged, ROUTE, repeat(200, 20));
        clock.advance(Duration.ofMinutes(25));
        settleOutputs(aged, ROUTE, 40);
        assertThat(aged.stats(GPT, ROUTE).outputSamples()).isEqualTo(1);
    }

    @Test
    void anOutputBeyondTwoMillionTokensIsRecordedAtTheTrackedMaximum() {
        settleOutputs(estimator, ROUTE, repeat(3_000_000, 20));
        assertThat(outputFor(GPT, ROUTE, OptionalInt.of(100_000))).isEqualTo(100_000);
        assertThat(estimator.stats(GPT, ROUTE).outputP95().getAsLong()).isBetween(2_097_152L, 2_120_000L);
    }

    @Test
    void statsOfAnUnknownRouteAreEmpty() {
        EstimatorStats stats = estimator.stats(GPT, "nobody");
        assertThat(stats.outputSamples()).isZero();
        assertThat(stats.outputP50()).isEmpty();
        assertThat(stats.outputP95()).isEmpty();
        assertThat(stats.cacheSamples()).isZero();
        assertThat(stats.ratioSamples()).isZero();
        assertThat(stats.inputRatio()).isEqualTo(1.0);
    }
}
