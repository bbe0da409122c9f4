package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Responses API read as a chat request, and a translated chat answer written as a Responses answer and stream. */
class ResponsesTranslationTest {

    static JsonNode json(String s) {
        return Json.parse(s).orElseThrow();
    }

    @Test
    void itemsBecomeTheChatMessagesTheyAmountTo() {
        ObjectNode chat = ResponsesRequests.toChat(json("""
                {"model":"claude","instructions":"Be brief.","max_output_tokens":50,"stream":true,
                 "input":[{"role":"user","content":[{"type":"input_text","text":"Weather?"}]},
                          {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\\"city\\":\\"x\\"}"},
                          {"type":"function_call","call_id":"call_2","name":"get_time","arguments":"{}"},
                          {"type":"function_call_output","call_id":"call_1","output":"sunny"},
                          {"type":"reasoning","id":"rs_1","summary":[]}],
                 "tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}}],
                 "tool_choice":{"type":"function","name":"get_weather"},
                 "text":{"format":{"type":"json_schema","name":"w","schema":{"type":"object"}}}}"""));
        assertThat(chat.path("messages").get(0)).isEqualTo(json("{\"role\":\"system\",\"content\":\"Be brief.\"}"));
        assertThat(chat.path("messages").get(1).path("content").get(0)).isEqualTo(json("{\"type\":\"text\",\"text\":\"Weather?\"}"));
        JsonNode assistant = chat.path("messages").get(2);
        assertThat(assistant.path("role").asText()).isEqualTo("assistant");
        assertThat(assistant.path("tool_calls")).hasSize(2);
        assertThat(assistant.path("tool_calls").get(0).path("function").path("arguments").asText()).isEqualTo("{\"city\":\"x\"}");
        assertThat(chat.path("messages").get(3)).isEqualTo(json("{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"sunny\"}"));
        assertThat(chat.path("messages")).hasSize(4);
        assertThat(chat.path("tools").get(0).path("function").path("name").asText()).isEqualTo("get_weather");
        assertThat(chat.path("tool_choice").path("function").path("name").asText()).isEqualTo("get_weather");
        assertThat(chat.path("max_completion_tokens").asInt()).isEqualTo(50);
        assertThat(chat.path("response_format").path("json_schema").path("name").asText()).isEqualTo("w");
        assertThat(chat.path("stream_options").path("include_usage").asBoolean()).isTrue();
        // and the chat translators take it
        assertThat(AnthropicRequests.fromChat(chat, "claude-sonnet-4", 100).path("messages")).hasSize(3);
    }

    @Test
    void whatOnlyOpenAiKeepsOrRunsIsRefusedNamingTheField() {
        TranslationException previous = catchThrowableOfType(TranslationException.class,
                () -> ResponsesRequests.toChat(json("{\"input\":\"x\",\"previous_response_id\":\"resp_1\"}")));
        assertThat(previous.param()).isEqualTo("previous_response_id");
        assertThat(previous.getMessage()).contains("keeps no conversation state");
        assertThat(catchThrowableOfType(TranslationException.class, () -> ResponsesRequests.toChat(
                json("{\"input\":[{\"type\":\"item_reference\",\"id\":\"msg_1\"}]}"))).param()).isEqualTo("input[0].type");
        assertThat(catchThrowableOfType(TranslationException.class, () -> ResponsesRequests.toChat(
                json("{\"input\":\"x\",\"tools\":[{\"type\":\"file_search\"}]}"))).param()).isEqualTo("tools[0].type");
    }

    @Test
    void aChatCompletionBecomesAResponseWithItsItemsAndUsage() {
        ObjectNode r = ResponsesAnswers.fromChat(json("""
                {"id":"chatcmpl-abc","created":7,"model":"claude-sonnet-4","choices":[{"index":0,
                 "message":{"role":"assistant","content":"Calling.","tool_calls":[{"id":"call_9","type":"function",
                 "function":{"name":"get_weather","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
                 "usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":2}}}"""));
        assertThat(r.path("id").asText()).isEqualTo("resp_abc");
        assertThat(r.path("status").asText()).isEqualTo("completed");
        assertThat(r.path("model").asText()).isEqualTo("claude-sonnet-4");
        assertThat(r.path("output").get(0).path("content").get(0).path("text").asText()).isEqualTo("Calling.");
        assertThat(r.path("output").get(1).path("call_id").asText()).isEqualTo("call_9");
        assertThat(r.path("usage").toString()).isEqualTo(json("""
                {"input_tokens":10,"input_tokens_details":{"cached_tokens":2},"output_tokens":5,
                 "output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}""").toString());
        ObjectNode cut = ResponsesAnswers.fromChat(json("""
                {"id":"chatcmpl-abc","created":7,"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"length"}],
                 "usage":{}}"""));
        assertThat(cut.path("status").asText()).isEqualTo("incomplete");
        assertThat(cut.path("incomplete_details").path("reason").asText()).isEqualTo("max_output_tokens");
    }

    static final String ANTHROPIC_TOOL_STREAM = """
            event: message_start
            data: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":1}}}

            event: content_block_start
            data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me check."}}

            event: content_block_start
            data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":"}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\\"x\\"}"}}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    static List<JsonNode> events(String sse) {
        List<JsonNode> out = new ArrayList<>();
        for (String line : sse.split("\n")) {
            if (line.startsWith("data: ")) {
                out.add(json(line.substring(6)));
            }
        }
        return out;
    }

    /** The whole stream, fed one byte at a time so that every event is cut everywhere. */
    static String byteByByte(ChatStreamConverter c, String upstream) {
        StringBuilder out = new StringBuilder();
        for (byte b : upstream.getBytes(StandardCharsets.UTF_8)) {
            out.append(new String(c.feed(new byte[] {b}), StandardCharsets.UTF_8));
        }
        return out.append(new String(c.finish(), StandardCharsets.UTF_8)).toString();
    }

    @Test
    void aTranslatedStreamIsTheResponsesEventSequenceWithUsage() {
        ChatStreamConverter c = ChatStreams.toResponses(ChatStreams.fromAnthropic(Fixtures.META, true));
        List<JsonNode> events = events(byteByByte(c, ANTHROPIC_TOOL_STREAM));
        assertThat(events).extracting(e -> e.path("type").asText()).containsExactly(
                "response.created", "response.in_progress",
                "response.output_item.added", "response.content_part.added", "response.output_text.delta",
                "response.output_text.done", "response.content_part.done", "response.output_item.done",
                "response.output_item.added", "response.function_call_arguments.delta",
                "response.function_call_arguments.delta", "response.function_call_arguments.done",
                "response.output_item.done", "response.completed");
        assertThat(events).extracting(e -> e.path("sequence_number").asInt())
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, events.size()).boxed().toList());
        JsonNode done = events.getLast().path("response");
        assertThat(done.path("output").get(0).path("content").get(0).path("text").asText()).isEqualTo("Let me check.");
        assertThat(done.path("output").get(1).path("arguments").asText()).isEqualTo("{\"city\":\"x\"}");
        assertThat(done.path("output").get(1).path("call_id").asText()).isEqualTo("toolu_1");
        assertThat(done.path("usage").path("input_tokens").asLong()).isEqualTo(12);
        assertThat(done.path("usage").path("output_tokens").asLong()).isEqualTo(9);
        assertThat(c.completed()).isTrue();
        assertThat(c.usage().usage().outputTokens()).isEqualTo(9);
    }

    @Test
    void anUpstreamErrorBecomesAnErrorEventAndEndsTheStream() {
        ChatStreamConverter c = ChatStreams.toResponses(ChatStreams.fromAnthropic(Fixtures.META, true));
        String out = new String(c.feed(("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
                + "{\"input_tokens\":1}}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                + "\"message\":\"Overloaded\"}}\n\n").getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
        JsonNode last = events(out).getLast();
        assertThat(last.path("type").asText()).isEqualTo("error");
        assertThat(last.path("message").asText()).isEqualTo("Overloaded");
        assertThat(c.closed()).isTrue();
        assertThat(c.completed()).isFalse();
        assertThat(c.finish()).isEmpty();
    }

    @Test
    void aKeepAliveOfTheChatStreamPassesAsItIs() {
        ChatStreamConverter c = ChatStreams.toResponses(ChatStreams.fromAnthropic(Fixtures.META, true));
        c.feed("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(c.feed("event: ping\ndata: {\"type\":\"ping\"}\n\n".getBytes(StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8)).isEqualTo(": keep-alive\n\n");
    }
}
