package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.FakeClock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Framing arithmetic on a fresh estimator, where tokenizer profiles apply a ratio of exactly 1.
 * Pinned o200k counts: "system" 1, "user" 1, "alice" 1, "You are a helpful assistant." 6,
 * "What is the capital of France?" 7, the get_weather schema 26.
 */
class PromptOverheadTest {

    private static final EstimatorProfile GPT = EstimatorProfile.of("gpt-4o", Tokenizer.O200K_BASE, true);
    private static final List<MessagePart> TWO_MESSAGES = List.of(
            MessagePart.of("system", "You are a helpful assistant."),
            MessagePart.of("user", "What is the capital of France?"));
    private static final String WEATHER_TOOL = "{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\","
            + "\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}";

    private final TokenEstimator estimator = new TokenEstimator(EstimatorConfig.defaults(), new FakeClock());

    private long inputOf(PromptShape prompt) {
        return estimator.estimate(GPT, "r", prompt).inputTokens();
    }

    @Test
    void eachMessageCostsThreeTokensPlusItsRoleAndTextAndTheReplyPrimingThree() {
        // 3 priming + (3 + 1 + 6) + (3 + 1 + 7)
        assertThat(inputOf(PromptShape.ofMessages(TWO_MESSAGES, OptionalInt.empty()))).isEqualTo(24);
    }

    @Test
    void anEmptyPromptStillCostsTheReplyPriming() {
        assertThat(inputOf(PromptShape.ofMessages(List.of(), OptionalInt.empty()))).isEqualTo(3);
    }

    @Test
    void aNameCostsOneTokenPlusTheNameItself() {
        var named = List.of(
                MessagePart.of("system", "You are a helpful assistant."),
                new MessagePart("user", Optional.of("alice"), "What is the capital of France?"));
        assertThat(inputOf(PromptShape.ofMessages(named, OptionalInt.empty()))).isEqualTo(24 + 1 + 1);
    }

    @Test
    void aToolCostsItsSchemaTextPlusTenTokens() {
        var withTool = new PromptShape(TWO_MESSAGES, List.of(WEATHER_TOOL), 0, 0, OptionalInt.empty());
        assertThat(inputOf(withTool)).isEqualTo(24 + 26 + 10);
    }

    @Test
    void imagesCost85AtLowAnd765AtHighDetail() {
        var withImages = new PromptShape(TWO_MESSAGES, List.of(), 2, 1, OptionalInt.empty());
        assertThat(inputOf(withImages)).isEqualTo(24 + 2 * 85 + 765);
    }

    @Test
    void everyOverheadIsConfigurable() {
        var config = EstimatorConfig.builder()
                .perMessageTokens(4).perNameTokens(2).replyPrimingTokens(0).perToolTokens(20)
                .lowDetailImageTokens(100).highDetailImageTokens(1105)
                .build();
        var custom = new TokenEstimator(config, new FakeClock());
        var prompt = new PromptShape(List.of(new MessagePart("user", Optional.of("alice"), "Hello, world!")),
                List.of(WEATHER_TOOL), 1, 1, OptionalInt.empty());
        // (4 + 1 + 4 + 2 + 1) + (20 + 26) + 100 + 1105
        assertThat(custom.estimate(GPT, "r", prompt).inputTokens()).isEqualTo(1263);
    }

    @Test
    void theSamePromptCostsMoreUnderCl100kWhenTheTextDoes() {
        var prompt = PromptShape.ofMessages(List.of(MessagePart.of("user", "日本語のテキストです。")), OptionalInt.empty());
        var cl100k = EstimatorProfile.of("gpt-4", Tokenizer.CL100K_BASE, true);
        // 3 priming + 3 framing + 1 role + text (8 under o200k, 10 under cl100k)
        assertThat(estimator.estimate(GPT, "r", prompt).inputTokens()).isEqualTo(15);
        assertThat(estimator.estimate(cl100k, "r", prompt).inputTokens()).isEqualTo(17);
    }

    @Test
    void theEstimateNamesItsMethodAndKeepsTheBaseCount() {
        TokenEstimate estimate = estimator.estimate(GPT, "r", PromptShape.ofMessages(TWO_MESSAGES, OptionalInt.empty()));
        assertThat(estimate.method()).isEqualTo(Tokenizer.O200K_BASE);
        assertThat(estimate.baseTokens()).isEqualTo(24);
        assertThat(estimate.promptTokens()).isEqualTo(24);
    }

    @Test
    void calibratedProfilesCountWithTheHeuristicAndTheConservativePrior() {
        var claude = EstimatorProfile.of("claude", Tokenizer.CALIBRATED, false);
        var prompt = PromptShape.ofMessages(List.of(MessagePart.of("user", "Hello, world!")), OptionalInt.empty());
        TokenEstimate estimate = estimator.estimate(claude, "r", prompt);
        // 3 priming + 3 framing + "user" 1 + "Hello, world!" 13 chars / 4 rounded up = 11; x 1.15 = 12.65
        assertThat(estimate.baseTokens()).isEqualTo(11);
        assertThat(estimate.promptTokens()).isEqualTo(13);
        assertThat(estimate.method()).isEqualTo(Tokenizer.CALIBRATED);
    }
}
