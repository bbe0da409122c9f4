package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Golden files in translate/responses/: a provider body and the chat.completion it must become. */
class ResponseGoldenTest {

    static List<String> cases() {
        return Fixtures.names("responses", "json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void translatesToChatCompletion(String name) {
        JsonNode f = Fixtures.json("responses/" + name + ".json");
        JsonNode actual = name.startsWith("anthropic-")
                ? AnthropicResponses.toChat(f.path("input"), Fixtures.META)
                : GeminiResponses.toChat(f.path("input"), Fixtures.META);
        assertThat(Fixtures.normalize(actual)).isEqualTo(f.path("expected"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void usageExtractorAgreesWithTheTranslatedUsage(String name) {
        JsonNode f = Fixtures.json("responses/" + name + ".json");
        WireFormat format = name.startsWith("anthropic-") ? WireFormat.ANTHROPIC : WireFormat.GEMINI;
        ObservedUsage observed = UsageExtractor.extract(format, f.path("input")).orElseThrow();
        JsonNode usage = f.path("expected").path("usage");
        assertThat(observed.promptTokens()).isEqualTo(usage.path("prompt_tokens").asLong());
        assertThat(observed.outputTokens()).isEqualTo(usage.path("completion_tokens").asLong());
        assertThat(observed.cacheReadTokens()).isEqualTo(usage.path("prompt_tokens_details").path("cached_tokens").asLong());
        assertThat(observed.reportedByProvider()).isTrue();
    }

    @Test
    void anAnthropicBodyThatIsNoMessageIsAnUpstreamFormatError() {
        assertThatThrownBy(() -> AnthropicResponses.toChat(Fixtures.parse("{\"type\":\"error\"}"), Fixtures.META))
                .isInstanceOf(UpstreamFormatException.class)
                .hasMessage("anthropic response is not a message (expected: an object with a content array)");
    }

    @Test
    void aGeminiBodyWithoutCandidatesIsAnUpstreamFormatError() {
        assertThatThrownBy(() -> GeminiResponses.toChat(Fixtures.parse("[1,2]"), Fixtures.META))
                .isInstanceOf(UpstreamFormatException.class)
                .hasMessage("gemini response is not a GenerateContentResponse (expected: candidates)");
    }
}
