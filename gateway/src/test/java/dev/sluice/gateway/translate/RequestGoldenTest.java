package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden files in translate/requests/: each holds an OpenAI chat request and the Anthropic and
 * Gemini bodies it must become (a target may be absent when the request is not translatable to it).
 */
class RequestGoldenTest {

    static Stream<String> anthropicCases() {
        return Fixtures.names("requests", "json").stream().filter(n -> fixture(n).has("anthropic"));
    }

    static Stream<String> geminiCases() {
        return Fixtures.names("requests", "json").stream().filter(n -> fixture(n).has("gemini"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("anthropicCases")
    void translatesToAnthropic(String name) {
        JsonNode f = fixture(name);
        JsonNode actual = AnthropicRequests.fromChat(f.path("request"), f.path("model").textValue(),
                f.path("defaultMaxTokens").asLong());
        assertThat(Fixtures.normalize(actual)).isEqualTo(f.path("anthropic"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("geminiCases")
    void translatesToGemini(String name) {
        JsonNode f = fixture(name);
        assertThat(Fixtures.normalize(GeminiRequests.fromChat(f.path("request")))).isEqualTo(f.path("gemini"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("anthropicCases")
    void leavesTheClientRequestUnchanged(String name) {
        JsonNode request = fixture(name).path("request");
        JsonNode before = request.deepCopy();
        AnthropicRequests.fromChat(request, "m", 10);
        if (fixture(name).has("gemini")) {
            GeminiRequests.fromChat(request);
        }
        assertThat(request).isEqualTo(before);
    }

    private static JsonNode fixture(String name) {
        return Fixtures.json("requests/" + name + ".json");
    }
}
