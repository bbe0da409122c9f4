package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketState;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A whole tool round trip (the model calls a tool, the client sends its result, the model answers
 * in text) through every route, translated and native, whole and streamed, against the mock,
 * which calls an offered tool deterministically. The provider's usage reaches settlement.
 */
class ToolRoundTripTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
            + "\"days\":{\"type\":\"integer\"}},\"required\":[\"city\"]}";
    static final String ARGUMENTS = "{\"city\":\"sluice\",\"days\":1}";
    /** What the mock counts the call as: the arguments' characters / 4, rounded up. */
    static final long CALL_TOKENS = Math.ceilDiv(ARGUMENTS.length(), 4);

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    /** A tool call as the client reassembled it. */
    record Called(String id, String name, JsonNode arguments) {}

    // --- /v1/chat/completions -------------------------------------------------------------------

    @ParameterizedTest(name = "{0} stream={1}")
    @CsvSource({"claude,false", "claude,true", "gemini,false", "gemini,true", "chat,false", "chat,true"})
    void chatCompletions(String profile, boolean stream) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("model", profile).put("max_tokens", 100);
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "user").put("content", "Weather?");
        body.putArray("tools").addObject().put("type", "function").putObject("function").put("name", "get_weather")
                .set("parameters", JSON.readTree(SCHEMA));
        streaming(body, stream, true);
        long before = settledOutput();
        Called call = chatCall(send("/v1/chat/completions", body), stream);
        assertCall(call);
        awaitSettledOutput(before + CALL_TOKENS, profile);

        ObjectNode assistant = messages.addObject().put("role", "assistant").putNull("content");
        ObjectNode tc = assistant.putArray("tool_calls").addObject().put("id", call.id()).put("type", "function");
        tc.putObject("function").put("name", call.name()).put("arguments", call.arguments().toString());
        messages.addObject().put("role", "tool").put("tool_call_id", call.id()).put("content", "sunny");
        HttpResponse<String> r = send("/v1/chat/completions", body);
        String text = stream
                ? chunks(r.body()).stream().map(c -> c.path("choices").path(0).path("delta").path("content").asText(""))
                        .reduce("", String::concat)
                : JSON.readTree(r.body()).path("choices").path(0).path("message").path("content").asText();
        assertThat(text).as(r.body()).isNotBlank();
    }

    static Called chatCall(HttpResponse<String> r, boolean stream) throws Exception {
        if (!stream) {
            JsonNode choice = JSON.readTree(r.body()).path("choices").path(0);
            assertThat(choice.path("finish_reason").asText()).as(r.body()).isEqualTo("tool_calls");
            JsonNode c = choice.path("message").path("tool_calls").path(0);
            return new Called(c.path("id").asText(), c.path("function").path("name").asText(),
                    JSON.readTree(c.path("function").path("arguments").asText()));
        }
        String id = "";
        String name = "";
        StringBuilder args = new StringBuilder();
        String finish = "";
        for (JsonNode chunk : chunks(r.body())) {
            JsonNode choice = chunk.path("choices").path(0);
            for (JsonNode c : choice.path("delta").path("tool_calls")) {
                id = c.path("id").asText(id);
                name = c.path("function").path("name").asText(name);
                args.append(c.path("function").path("arguments").asText(""));
            }
            finish = choice.path("finish_reason").asText(finish);
        }
        assertThat(finish).as(r.body()).isEqualTo("tool_calls");
        return new Called(id, name, JSON.readTree(args.toString()));
    }

    // --- /v1/responses --------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} stream={1}")
    @CsvSource({"claude,false", "claude,true", "gemini,false", "gemini,true", "chat,false", "chat,true"})
    void responses(String profile, boolean stream) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("model", profile).put("max_output_tokens", 100)
                .put("instructions", "Be brief.");
        ArrayNode input = body.putArray("input");
        input.addObject().put("role", "user").put("content", "Weather?");
        body.putArray("tools").addObject().put("type", "function").put("name", "get_weather")
                .set("parameters", JSON.readTree(SCHEMA));
        streaming(body, stream, false);
        long before = settledOutput();
        HttpResponse<String> first = send("/v1/responses", body);
        Called call = responsesCall(first, stream);
        assertCall(call);
        awaitSettledOutput(before + CALL_TOKENS, profile);

        input.addObject().put("type", "function_call").put("call_id", call.id()).put("name", call.name())
                .put("arguments", call.arguments().toString());
        input.addObject().put("type", "function_call_output").put("call_id", call.id()).put("output", "sunny");
        HttpResponse<String> r = send("/v1/responses", body);
        JsonNode done = stream ? completed(r.body()) : JSON.readTree(r.body());
        assertThat(done.path("status").asText()).as(r.body()).isEqualTo("completed");
        JsonNode message = done.path("output").path(0);
        assertThat(message.path("type").asText()).isEqualTo("message");
        assertThat(message.path("content").path(0).path("text").asText()).isNotBlank();
        assertThat(done.path("usage").path("output_tokens").asLong()).isPositive();
        if (stream) {
            String deltas = events(r.body()).stream().filter(e -> e.path("type").asText().equals("response.output_text.delta"))
                    .map(e -> e.path("delta").asText()).reduce("", String::concat);
            assertThat(deltas).isEqualTo(message.path("content").path(0).path("text").asText());
        }
    }

    static Called responsesCall(HttpResponse<String> r, boolean stream) throws Exception {
        JsonNode response = stream ? completed(r.body()) : JSON.readTree(r.body());
        if (stream) {
            List<JsonNode> events = events(r.body());
            assertThat(events.getFirst().path("type").asText()).isEqualTo("response.created");
            assertThat(events).extracting(e -> e.path("sequence_number").asInt())
                    .isEqualTo(java.util.stream.IntStream.range(0, events.size()).boxed().toList());
            String deltas = events.stream().filter(e -> e.path("type").asText().equals("response.function_call_arguments.delta"))
                    .map(e -> e.path("delta").asText()).reduce("", String::concat);
            assertThat(JSON.readTree(deltas)).isEqualTo(JSON.readTree(ARGUMENTS));
        }
        assertThat(response.path("usage").path("output_tokens").asLong()).as(r.body()).isEqualTo(CALL_TOKENS);
        for (JsonNode item : response.path("output")) {
            if (item.path("type").asText().equals("function_call")) {
                return new Called(item.path("call_id").asText(), item.path("name").asText(),
                        JSON.readTree(item.path("arguments").asText()));
            }
        }
        throw new AssertionError("no function_call in " + r.body());
    }

    /** The response of a stream's response.completed event. */
    static JsonNode completed(String sse) throws Exception {
        List<JsonNode> events = events(sse);
        JsonNode last = events.getLast();
        assertThat(last.path("type").asText()).as(sse).isEqualTo("response.completed");
        return last.path("response");
    }

    // --- native Anthropic and Gemini ------------------------------------------------------------

    @ParameterizedTest(name = "stream={0}")
    @CsvSource({"false", "true"})
    void anthropicMessages(boolean stream) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("model", "claude").put("max_tokens", 100).put("stream", stream);
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "user").put("content", "Weather?");
        body.putArray("tools").addObject().put("name", "get_weather").set("input_schema", JSON.readTree(SCHEMA));
        HttpResponse<String> r = send("/v1/messages", body);
        String id;
        JsonNode args;
        if (stream) {
            id = events(r.body()).stream().map(e -> e.path("content_block").path("id").asText(""))
                    .filter(s -> !s.isEmpty()).findFirst().orElseThrow();
            args = JSON.readTree(events(r.body()).stream().map(e -> e.path("delta").path("partial_json").asText(""))
                    .reduce("", String::concat));
        } else {
            JsonNode block = JSON.readTree(r.body()).path("content").path(0);
            id = block.path("id").asText();
            args = block.path("input");
        }
        assertCall(new Called(id, "get_weather", args));
        ArrayNode assistant = messages.addObject().put("role", "assistant").putArray("content");
        assistant.addObject().put("type", "tool_use").put("id", id).put("name", "get_weather").set("input", args);
        messages.addObject().put("role", "user").putArray("content").addObject().put("type", "tool_result")
                .put("tool_use_id", id).put("content", "sunny");
        HttpResponse<String> answer = send("/v1/messages", body);
        assertThat(answer.body()).contains(stream ? "text_delta" : "\"type\":\"text\"").doesNotContain("tool_use\"");
    }

    @ParameterizedTest(name = "stream={0}")
    @CsvSource({"false", "true"})
    void geminiGenerateContent(boolean stream) throws Exception {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode contents = body.putArray("contents");
        contents.addObject().put("role", "user").putArray("parts").addObject().put("text", "Weather?");
        body.putArray("tools").addObject().putArray("functionDeclarations").addObject().put("name", "get_weather")
                .set("parametersJsonSchema", JSON.readTree(SCHEMA));
        String path = "/v1beta/models/gemini:" + (stream ? "streamGenerateContent?alt=sse" : "generateContent");
        HttpResponse<String> r = send(path, body);
        JsonNode answer = stream ? chunks(r.body()).getLast() : JSON.readTree(r.body());
        JsonNode fc = answer.path("candidates").path(0).path("content").path("parts").path(0).path("functionCall");
        assertCall(new Called("", fc.path("name").asText(), fc.path("args")));
        contents.addObject().put("role", "model").putArray("parts").addObject().set("functionCall", fc);
        ObjectNode response = contents.addObject().put("role", "user").putArray("parts").addObject()
                .putObject("functionResponse").put("name", "get_weather");
        response.putObject("response").put("output", "sunny");
        HttpResponse<String> second = send(path, body);
        assertThat(second.body()).contains("\"text\"").doesNotContain("functionCall");
    }

    @Test
    void aTranslatedStreamSettlesWithTheProvidersOwnCount() throws Exception {
        // Text, not a tool call: the settled count is what the provider reported, which the client sees too.
        for (String profile : List.of("claude", "gemini")) {
            ObjectNode body = JSON.createObjectNode().put("model", profile).put("max_output_tokens", 100).put("stream", true)
                    .put("input", "Hello");
            long before = settledOutput();
            HttpResponse<String> r = send("/v1/responses", body);
            long reported = completed(r.body()).path("usage").path("output_tokens").asLong();
            assertThat(reported).isPositive();
            awaitSettledOutput(before + reported, profile);
        }
    }

    // --- helpers --------------------------------------------------------------------------------

    static void assertCall(Called call) throws Exception {
        assertThat(call.name()).isEqualTo("get_weather");
        assertThat(call.arguments()).isEqualTo(JSON.readTree(ARGUMENTS));
    }

    static void streaming(ObjectNode body, boolean stream, boolean chat) {
        if (stream) {
            body.put("stream", true);
            if (chat) {
                body.putObject("stream_options").put("include_usage", true);
            }
        }
    }

    static HttpResponse<String> send(String path, ObjectNode body) throws Exception {
        HttpResponse<String> r = f.post(path, GatewayFixture.KEY_METERED, body.toString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return r;
    }

    /** Output tokens the metered key's bucket settled (within reservations, and beyond them as overage). */
    static long settledOutput() {
        BucketState b = f.gateway.governor().bucket(Scope.of(ScopeLevel.API_KEY, "metered")).orElseThrow();
        BucketState.DimensionState d = b.of(Dimension.OUTPUT_TOKENS).orElseThrow();
        return d.settled() + d.overage();
    }

    static void awaitSettledOutput(long expected, String profile) throws Exception {
        f.awaitCondition(() -> settledOutput() == expected,
                () -> profile + ": settled output " + settledOutput() + " (expected: " + expected + ")");
    }

    /** The JSON data of every SSE event but [DONE]. */
    static List<JsonNode> events(String sse) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String line : sse.split("\r?\n")) {
            if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
                out.add(JSON.readTree(line.substring(6)));
            }
        }
        return out;
    }

    static List<JsonNode> chunks(String sse) throws Exception {
        return events(sse);
    }
}
