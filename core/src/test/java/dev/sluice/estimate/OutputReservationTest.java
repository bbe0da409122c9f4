package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.FakeClock;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class OutputReservationTest {

    private final TokenEstimator estimator = new TokenEstimator(EstimatorConfig.defaults(), new FakeClock());

    private static PromptShape prompt(OptionalInt maxTokens) {
        return PromptShape.ofMessages(List.of(MessagePart.of("user", "hello there")), maxTokens);
    }

    @Test
    void whereTheProviderChargesMaxTokensOnArrivalTheWholeMaxTokensIsReserved() {
        EstimatorProfile openai = EstimatorProfile.of("gpt", Tokenizer.O200K_BASE, true)
                .withOutputReservation(OutputReservation.MAX_TOKENS);

        assertThat(estimator.estimate(openai, "r", prompt(OptionalInt.of(3_000))).outputTokens()).isEqualTo(3_000);
        assertThat(estimator.estimate(openai, "r", prompt(OptionalInt.empty())).outputTokens())
                .isEqualTo(EstimatorProfile.DEFAULT_MAX_OUTPUT_TOKENS);
    }

    @Test
    void otherwiseTheLearnedReservationStaysBelowMaxTokens() {
        EstimatorProfile claude = EstimatorProfile.of("claude", Tokenizer.CALIBRATED, false);

        assertThat(estimator.estimate(claude, "r", prompt(OptionalInt.of(3_000))).outputTokens())
                .isEqualTo(EstimatorConfig.defaults().coldStartOutputTokens());
    }
}
