package dev.sluice.mock.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The mock calls an offered tool, deterministically, in every flavour, streamed and not; a tool result ends the loop. */
class ToolCallTest extends MockHarness {

    static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
            + "\"days\":{\"type\":\"integer\"},\"unit\":{\"type\":\"string\",\"enum\":[\"celsius\",\"fahrenheit\"]}},"
            + "\"required\":[\"city\"]}";
    static final String ARGUMENTS = "{\"city\":\"sluice\",\"days\":1,\"unit\":\"celsius\"}";

    static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"}],"
            + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":" + SCHEMA + "}}]%s}";

    @Test
    void openAiChatCallsTheFirstToolWithArgumentsFromItsSchema() {
        var s = start(MockConfig.defaults(Flavour.OPENAI));
        JsonNode m = json(post(s, "/v1/chat/completions", CHAT.formatted(""))).path("choices").get(0);
        assertThat(m.path("finish_reason").asText()).isEqualTo("tool_calls");
        JsonNode call = m.path("message").path("tool_calls").get(0);
        assertThat(call.path("function").path("name").asText()).isEqualTo("get_weather");
        assertThat(call.path("function").path("arguments").asText()).isEqualTo(ARGUMENTS);
        assertThat(call.path("id").asText()).startsWith("call_");
        assertThat(m.path("message").path("content").isNull()).isTrue();
        // The same request gets the same call again.
        JsonNode again = json(post(s, "/v1/chat/completions", CHAT.formatted(""))).path("choices").get(0);
        assertThat(again.path("message").path("tool_calls").get(0).path("function").path("arguments").asText())
                .isEqualTo(ARGUMENTS);
    }

    @Test
    void openAiChatStreamsTheArgumentsInPiecesThatJoinToTheWhole() {
        var s = start(MockConfig.defaults(Flavour.OPENAI));
        var r = post(s, "/v1/chat/completions", CHAT.formatted(",\"stream\":true,\"stream_options\":{\"include_usage\":true}"));
        List<JsonNode> chunks = sseData(r.body()).stream().filter(d -> !d.equals("[DONE]")).map(MockHarness::json).toList();
        StringBuilder args = new StringBuilder();
        for (JsonNode c : chunks) {
            for (JsonNode call : c.path("choices").path(0).path("delta").path("tool_calls")) {
                args.append(call.path("function").path("arguments").asText());
            }
        }
        assertThat(args.toString()).isEqualTo(ARGUMENTS);
        assertThat(chunks.get(0).path("choices").get(0).path("delta").path("tool_calls").get(0).path("function")
                .path("name").asText()).isEqualTo("get_weather");
        assertThat(chunks).anyMatch(c -> c.path("choices").path(0).path("finish_reason").asText().equals("tool_calls"));
        assertThat(chunks.getLast().path("usage").path("completion_tokens").asLong())
                .isEqualTo(Math.ceilDiv(ARGUMENTS.length(), 4));
    }

    @Test
    void aToolResultLastGetsTextAndToolChoiceNoneGetsNoCall() {
        var s = start(MockConfig.defaults(Flavour.OPENAI));
        String answered = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
                + "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"sunny\"}],"
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":" + SCHEMA + "}}]}";
        JsonNode m = json(post(s, "/v1/chat/completions", answered)).path("choices").get(0);
        assertThat(m.path("finish_reason").asText()).isEqualTo("stop");
        assertThat(m.path("message").path("content").asText()).isNotEmpty();
        JsonNode none = json(post(s, "/v1/chat/completions", CHAT.formatted(",\"tool_choice\":\"none\""))).path("choices").get(0);
        assertThat(none.path("message").has("tool_calls")).isFalse();
    }

    @Test
    void responsesCallsAFunctionWholeAndStreamed() {
        var s = start(MockConfig.defaults(Flavour.OPENAI));
        String body = "{\"model\":\"gpt-4o-mini\",\"input\":\"Weather?\",\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\","
                + "\"parameters\":" + SCHEMA + "}]%s}";
        JsonNode item = json(post(s, "/v1/responses", body.formatted(""))).path("output").get(0);
        assertThat(item.path("type").asText()).isEqualTo("function_call");
        assertThat(item.path("arguments").asText()).isEqualTo(ARGUMENTS);
        var r = post(s, "/v1/responses", body.formatted(",\"stream\":true"));
        assertThat(sseEvents(r.body())).contains("response.output_item.added", "response.function_call_arguments.delta",
                "response.function_call_arguments.done", "response.completed");
        StringBuilder args = new StringBuilder();
        sseData(r.body()).stream().map(MockHarness::json)
                .filter(d -> d.path("type").asText().equals("response.function_call_arguments.delta"))
                .forEach(d -> args.append(d.path("delta").asText()));
        assertThat(args.toString()).isEqualTo(ARGUMENTS);
    }

    @Test
    void anthropicAnswersWithAToolUseBlockWholeAndStreamed() {
        var s = start(MockConfig.defaults(Flavour.ANTHROPIC));
        String body = "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"}],"
                + "\"tools\":[{\"name\":\"get_weather\",\"input_schema\":" + SCHEMA + "}]%s}";
        JsonNode m = json(post(s, "/v1/messages", body.formatted("")));
        assertThat(m.path("stop_reason").asText()).isEqualTo("tool_use");
        JsonNode block = m.path("content").get(0);
        assertThat(block.path("type").asText()).isEqualTo("tool_use");
        assertThat(block.path("id").asText()).startsWith("toolu_");
        assertThat(json(block.path("input").toString())).isEqualTo(json(ARGUMENTS));
        var r = post(s, "/v1/messages", body.formatted(",\"stream\":true"));
        StringBuilder args = new StringBuilder();
        sseData(r.body()).stream().map(MockHarness::json)
                .filter(d -> d.path("delta").path("type").asText().equals("input_json_delta"))
                .forEach(d -> args.append(d.path("delta").path("partial_json").asText()));
        assertThat(args.toString()).isEqualTo(ARGUMENTS);
        assertThat(r.body()).contains("\"stop_reason\":\"tool_use\"");
    }

    @Test
    void geminiAnswersWithAFunctionCallPartWholeAndStreamed() {
        var s = start(MockConfig.defaults(Flavour.GEMINI));
        String body = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather?\"}]}],"
                + "\"tools\":[{\"functionDeclarations\":[{\"name\":\"get_weather\",\"parametersJsonSchema\":" + SCHEMA + "}]}]}";
        JsonNode part = json(post(s, "/v1beta/models/gemini-2.5-flash:generateContent", body))
                .path("candidates").get(0).path("content").path("parts").get(0);
        assertThat(part.path("functionCall").path("name").asText()).isEqualTo("get_weather");
        assertThat(part.path("functionCall").path("args")).isEqualTo(json(ARGUMENTS));
        var r = post(s, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", body);
        List<JsonNode> chunks = sseData(r.body()).stream().map(MockHarness::json).toList();
        assertThat(chunks).hasSize(1);
        assertThat(chunks.get(0).path("candidates").get(0).path("content").path("parts").get(0).has("functionCall")).isTrue();
    }

    @Test
    void geminiEmbedsOneOrABatchOfContents() {
        var s = start(MockConfig.defaults(Flavour.GEMINI));
        JsonNode one = json(post(s, "/v1beta/models/text-embedding-004:embedContent",
                "{\"content\":{\"parts\":[{\"text\":\"Hello\"}]}}"));
        assertThat(one.path("embedding").path("values")).hasSize(8);
        JsonNode batch = json(post(s, "/v1beta/models/text-embedding-004:batchEmbedContents",
                "{\"requests\":[{\"model\":\"models/text-embedding-004\",\"content\":{\"parts\":[{\"text\":\"Hello\"}]}},"
                        + "{\"model\":\"models/text-embedding-004\",\"content\":{\"parts\":[{\"text\":\"Bye\"}]}}]}"));
        assertThat(batch.path("embeddings")).hasSize(2);
        assertThat(batch.path("embeddings").get(0)).isEqualTo(one.path("embedding"));
    }
}
