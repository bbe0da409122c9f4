package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Invalid values are rejected where they are built, naming the field and what was expected. */
class ValidationTest {

    @Test
    void configNamesTheFieldAndTheExpectedRange() {
        assertThatThrownBy(() -> EstimatorConfig.builder().perMessageTokens(-1).build())
                .hasMessage("perMessageTokens: -1 (expected: >= 0)");
        assertThatThrownBy(() -> EstimatorConfig.builder().minOutputSamples(0).build())
                .hasMessage("minOutputSamples: 0 (expected: >= 1)");
        assertThatThrownBy(() -> EstimatorConfig.builder().calibratedPriorRatio(5.0).build())
                .hasMessage("calibratedPriorRatio: 5.0 (expected: >= 0.25 and <= 4.0)");
        assertThatThrownBy(() -> EstimatorConfig.builder().smoothing(0.0).build())
                .hasMessage("smoothing: 0.0 (expected: > 0 and <= 1)");
        assertThatThrownBy(() -> EstimatorConfig.builder().outputWindowAge(Duration.ofSeconds(-5)).build())
                .hasMessage("outputWindowAge: PT-5S (expected: > 0 and <= PT8760H)");
    }

    @Test
    void profileNeedsAnIdAndAPositiveOutputCeiling() {
        assertThatThrownBy(() -> EstimatorProfile.of(" ", Tokenizer.CALIBRATED, true))
                .hasMessage("profileId: \" \" (expected: non-blank)");
        assertThatThrownBy(() -> new EstimatorProfile("p", Tokenizer.CALIBRATED, true, 0))
                .hasMessage("defaultMaxOutputTokens: 0 (expected: >= 1)");
    }

    @Test
    void promptCountsAreNonNegative() {
        assertThatThrownBy(() -> new PromptShape(List.of(), List.of(), -1, 0, OptionalInt.empty()))
                .hasMessage("imageCountLow: -1 (expected: >= 0)");
        assertThatThrownBy(() -> PromptShape.ofMessages(List.of(), OptionalInt.of(-3)))
                .hasMessage("maxOutputTokens: -3 (expected: >= 0)");
    }

    @Test
    void cacheReadsArePartOfTheReportedInput() {
        assertThatThrownBy(() -> new ActualTokens(100, 5, 101))
                .hasMessage("cacheReadTokens: 101 (expected: >= 0 and <= inputTokens 100)");
    }

    @Test
    void anEstimateChargesAtMostThePromptAndAtLeastThePromptLessItsCacheReads() {
        assertThatThrownBy(() -> new TokenEstimate(50, 10, 40, 100, 100, Tokenizer.O200K_BASE))
                .hasMessage("inputTokens: 50 (expected: >= 60 and <= 100)");
    }
}
