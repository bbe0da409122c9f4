package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Requests that cannot be translated fail with the offending field's path and what was expected. */
class RequestValidationTest {

    private static final String USER = "{\"role\":\"user\",\"content\":\"hi\"}";

    static Stream<Arguments> badForBoth() {
        return Stream.of(
                Arguments.of("[]", "", ": body is an array (expected: a JSON object)"),
                Arguments.of("{}", "messages", "messages: missing (expected: a non-empty array)"),
                Arguments.of("{\"messages\":[]}", "messages", "messages: an array (expected: a non-empty array)"),
                Arguments.of("{\"messages\":[{\"role\":\"system\",\"content\":\"x\"},{\"role\":\"user\",\"content\":\"\"}]}",
                        "messages", "messages: no user or assistant content (expected: at least one non-empty user, assistant"
                                + " or tool message)"),
                Arguments.of("{\"messages\":[\"hi\"]}", "messages[0]", "messages[0]: \"hi\" (expected: an object)"),
                Arguments.of("{\"messages\":[{\"role\":\"bot\",\"content\":\"x\"}]}", "messages[0].role",
                        "messages[0].role: \"bot\" (expected: system, developer, user, assistant or tool)"),
                Arguments.of("{\"messages\":[{\"role\":\"user\"}]}", "messages[0].content",
                        "messages[0].content: missing (expected: a string or an array of content parts)"),
                Arguments.of("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"video\"}]}]}", "messages[0].content[0].type",
                        "messages[0].content[0].type: \"video\" (expected: text, image_url, file or input_audio)"),
                Arguments.of("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"ftp://x/y.png\"}}]}]}",
                        "messages[0].content[0].image_url.url",
                        "messages[0].content[0].image_url.url: \"ftp://x/y.png\" (expected: a data: URL or an http(s) URL)"),
                Arguments.of("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png,abc\"}}]}]}",
                        "messages[0].content[0].image_url.url", "messages[0].content[0].image_url.url: a data: URL without a media type"
                                + " or base64 payload (expected: data:<media type>;base64,<data>)"),
                Arguments.of("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"file\",\"file\":{\"file_id\":\"file-1\"}}]}]}",
                        "messages[0].content[0].file.file_id",
                        "messages[0].content[0].file.file_id: uploaded files cannot be forwarded (expected: file_data)"),
                Arguments.of("{\"messages\":[{\"role\":\"system\",\"content\":[{\"type\":\"image_url\"}]}]}", "messages[0].content[0].type",
                        "messages[0].content[0].type: \"image_url\" (expected: text)"),
                Arguments.of("{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"[1]\"}}]}]}",
                        "messages[0].tool_calls[0].function.arguments",
                        "messages[0].tool_calls[0].function.arguments: \"[1]\" (expected: a JSON object encoded as a string)"),
                Arguments.of("{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"function\":{\"name\":\"f\"}}]}]}",
                        "messages[0].tool_calls[0].id", "messages[0].tool_calls[0].id: missing (expected: a string)"),
                Arguments.of("{\"messages\":[{\"role\":\"assistant\",\"function_call\":{\"name\":\"f\"}}]}", "messages[0].function_call",
                        "messages[0].function_call: legacy function calls are not translated (expected: tool_calls)"),
                Arguments.of("{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}", "messages[0].tool_call_id",
                        "messages[0].tool_call_id: missing (expected: a string)"),
                Arguments.of("{\"messages\":[" + USER + "],\"n\":2}", "n",
                        "n: 2 (expected: 1, the only choice count this provider supports)"),
                Arguments.of("{\"messages\":[" + USER + "],\"max_tokens\":0}", "max_tokens", "max_tokens: 0 (expected: an integer >= 1)"),
                Arguments.of("{\"messages\":[" + USER + "],\"max_completion_tokens\":2.5}", "max_completion_tokens",
                        "max_completion_tokens: 2.5 (expected: an integer >= 1)"),
                Arguments.of("{\"messages\":[" + USER + "],\"temperature\":\"hot\"}", "temperature",
                        "temperature: \"hot\" (expected: a number)"),
                Arguments.of("{\"messages\":[" + USER + "],\"seed\":1.5}", "seed", "seed: 1.5 (expected: an integer)"),
                Arguments.of("{\"messages\":[" + USER + "],\"stop\":[\"a\",3]}", "stop[1]", "stop[1]: 3 (expected: a string)"),
                Arguments.of("{\"messages\":[" + USER + "],\"stream\":\"yes\"}", "stream", "stream: \"yes\" (expected: true or false)"),
                Arguments.of("{\"messages\":[" + USER + "],\"tools\":[{\"type\":\"custom\"}]}", "tools[0].type",
                        "tools[0].type: \"custom\" (expected: function)"),
                Arguments.of("{\"messages\":[" + USER + "],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":[]}}]}",
                        "tools[0].function.parameters", "tools[0].function.parameters: an array (expected: a JSON Schema object)"),
                Arguments.of("{\"messages\":[" + USER + "],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],"
                        + "\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"g\"}}}", "tool_choice.function.name",
                        "tool_choice.function.name: \"g\" (expected: the name of a declared tool)"),
                Arguments.of("{\"messages\":[" + USER + "],\"tool_choice\":\"sometimes\"}", "tool_choice",
                        "tool_choice: \"sometimes\" (expected: auto, none, required or a named function)"),
                Arguments.of("{\"messages\":[" + USER + "],\"response_format\":{\"type\":\"xml\"}}", "response_format.type",
                        "response_format.type: \"xml\" (expected: text, json_object or json_schema)"));
    }

    @ParameterizedTest(name = "{2}")
    @MethodSource("badForBoth")
    void anthropicRejects(String request, String param, String message) {
        assertThatThrownBy(() -> AnthropicRequests.fromChat(Fixtures.parse(request), "claude", 1024))
                .isInstanceOfSatisfying(TranslationException.class, e -> assertThat(e.param()).isEqualTo(param))
                .hasMessage(message);
    }

    @ParameterizedTest(name = "{2}")
    @MethodSource("badForBoth")
    void geminiRejects(String request, String param, String message) {
        assertThatThrownBy(() -> GeminiRequests.fromChat(Fixtures.parse(request)))
                .isInstanceOfSatisfying(TranslationException.class, e -> assertThat(e.param()).isEqualTo(param))
                .hasMessage(message);
    }

    @Test
    void anthropicRejectsMediaItCannotRead() {
        String audio = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_audio\","
                + "\"input_audio\":{\"data\":\"UklGRg==\",\"format\":\"wav\"}}]}]}";
        assertThatThrownBy(() -> AnthropicRequests.fromChat(Fixtures.parse(audio), "claude", 1024))
                .isInstanceOf(TranslationException.class)
                .hasMessage("messages[0].content[0].input_audio: media type audio/wav (expected: image/jpeg, image/png,"
                        + " image/gif, image/webp or application/pdf)");
    }

    @Test
    void geminiTakesAudioInline() {
        String audio = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_audio\","
                + "\"input_audio\":{\"data\":\"UklGRg==\",\"format\":\"wav\"}}]}]}";
        assertThat(GeminiRequests.fromChat(Fixtures.parse(audio)).path("contents").path(0).path("parts").path(0))
                .isEqualTo(Fixtures.parse("{\"inlineData\":{\"mimeType\":\"audio/wav\",\"data\":\"UklGRg==\"}}"));
    }

    @Test
    void geminiRejectsRemoteMedia() {
        JsonNode request = Fixtures.json("requests/remote-image-prefill.json").path("request");
        assertThatThrownBy(() -> GeminiRequests.fromChat(request))
                .isInstanceOfSatisfying(TranslationException.class,
                        e -> assertThat(e.param()).isEqualTo("messages[0].content[0].image_url.url"))
                .hasMessage("messages[0].content[0].image_url.url: a remote URL (expected: a data: URL;"
                        + " gemini profiles take inline media only)");
    }

    @Test
    void geminiNeedsTheCallThatAToolResultAnswers() {
        String orphan = "{\"messages\":[" + USER + ",{\"role\":\"tool\",\"tool_call_id\":\"call_9\",\"content\":\"x\"}]}";
        assertThatThrownBy(() -> GeminiRequests.fromChat(Fixtures.parse(orphan)))
                .isInstanceOf(TranslationException.class)
                .hasMessage("messages[1].tool_call_id: \"call_9\" (expected: the id of an earlier assistant tool call)");
        // Anthropic links results by id alone, so the same request passes there.
        assertThat(AnthropicRequests.fromChat(Fixtures.parse(orphan), "claude", 1).path("messages").path(0)
                .path("content").path(0).path("tool_use_id").textValue()).isEqualTo("call_9");
    }

    @Test
    void longValuesAreCutInMessages() {
        String longRole = "x".repeat(100);
        assertThatThrownBy(() -> GeminiRequests.fromChat(Fixtures.parse("{\"messages\":[{\"role\":\"" + longRole + "\"}]}")))
                .hasMessage("messages[0].role: \"" + "x".repeat(40) + "...\" (expected: system, developer, user, assistant or tool)");
    }

    @Test
    void profileParametersAreValidated() {
        JsonNode request = Fixtures.parse("{\"messages\":[" + USER + "]}");
        assertThatThrownBy(() -> AnthropicRequests.fromChat(request, " ", 1)).hasMessage("model: \" \" (expected: non-blank)");
        assertThatThrownBy(() -> AnthropicRequests.fromChat(request, "claude", 0))
                .hasMessage("defaultMaxTokens: 0 (expected: > 0)");
    }

    @Test
    void geminiPathsCarryModelAndStreamingMode() {
        assertThat(GeminiRequests.path("gemini-2.5-flash", false)).isEqualTo("/v1beta/models/gemini-2.5-flash:generateContent");
        assertThat(GeminiRequests.path("models/gemini-2.5-pro", true))
                .isEqualTo("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
        assertThat(GeminiRequests.path("tunedModels/my-model-7", false)).isEqualTo("/v1beta/tunedModels/my-model-7:generateContent");
        assertThatThrownBy(() -> GeminiRequests.path("../admin", false))
                .hasMessage("model: \"../admin\" (expected: letters, digits, '.', '_' or '-', optionally after models/ or tunedModels/)");
    }
}
