package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** tool_choice and parallel_tool_calls, for each target. */
class ToolChoiceTest {

    private static final String TOOLS = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";

    static Stream<Arguments> choices() {
        return Stream.of(
                Arguments.of("", "null", "null"),
                Arguments.of(",\"tool_choice\":\"auto\"", "{\"type\":\"auto\"}", "{\"mode\":\"AUTO\"}"),
                Arguments.of(",\"tool_choice\":\"none\"", "{\"type\":\"none\"}", "{\"mode\":\"NONE\"}"),
                Arguments.of(",\"tool_choice\":\"required\"", "{\"type\":\"any\"}", "{\"mode\":\"ANY\"}"),
                Arguments.of(",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"f\"}}",
                        "{\"type\":\"tool\",\"name\":\"f\"}", "{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"f\"]}"),
                Arguments.of(",\"parallel_tool_calls\":false",
                        "{\"type\":\"auto\",\"disable_parallel_tool_use\":true}", "null"),
                Arguments.of(",\"parallel_tool_calls\":true", "null", "null"),
                Arguments.of(",\"tool_choice\":\"required\",\"parallel_tool_calls\":false",
                        "{\"type\":\"any\",\"disable_parallel_tool_use\":true}", "{\"mode\":\"ANY\"}"),
                Arguments.of(",\"tool_choice\":\"none\",\"parallel_tool_calls\":false", "{\"type\":\"none\"}", "{\"mode\":\"NONE\"}"),
                Arguments.of(",\"function_call\":\"none\"", "{\"type\":\"none\"}", "{\"mode\":\"NONE\"}"));
    }

    @ParameterizedTest(name = "[{index}] tools{0}")
    @MethodSource("choices")
    void mapsToolChoice(String extra, String anthropic, String gemini) {
        var request = Fixtures.parse("{" + TOOLS + extra + "}");
        assertThat(orNull(AnthropicRequests.fromChat(request, "claude", 1).get("tool_choice")))
                .isEqualTo(Fixtures.parse(anthropic));
        assertThat(orNull(GeminiRequests.fromChat(request).path("toolConfig").get("functionCallingConfig")))
                .isEqualTo(Fixtures.parse(gemini));
    }

    @Test
    void toolChoiceWithoutToolsIsDropped() {
        var request = Fixtures.parse("{\"tool_choice\":\"none\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(AnthropicRequests.fromChat(request, "claude", 1).has("tool_choice")).isFalse();
        assertThat(GeminiRequests.fromChat(request).has("toolConfig")).isFalse();
    }

    private static JsonNode orNull(JsonNode node) {
        return node == null ? NullNode.getInstance() : Fixtures.normalize(node);
    }
}
