package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.mock.http.StreamPlan.Chunk;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;

/** OpenAI (and Azure, and Gemini-compatible) response bodies and streams. */
final class OpenAiWire {

    private static final String FINGERPRINT = "fp_mock";

    private OpenAiWire() {}

    static String finishReason(Generation g) {
        return g.callsTool() ? "tool_calls" : g.hitMaxTokens() ? "length" : "stop";
    }

    private static String callId(Generation g) {
        return g.toolCallId("call_");
    }

    /** Chat Completions usage: cached tokens are part of {@code prompt_tokens}. */
    static ObjectNode usage(Call c, Generation g) {
        ObjectNode u = Wire.obj();
        u.put("prompt_tokens", c.promptTokens());
        u.put("completion_tokens", g.outputTokens());
        u.put("total_tokens", c.promptTokens() + g.outputTokens());
        ObjectNode prompt = u.putObject("prompt_tokens_details");
        prompt.put("cached_tokens", c.cacheReadTokens());
        prompt.put("audio_tokens", 0);
        ObjectNode completion = u.putObject("completion_tokens_details");
        completion.put("reasoning_tokens", 0);
        completion.put("audio_tokens", 0);
        completion.put("accepted_prediction_tokens", 0);
        completion.put("rejected_prediction_tokens", 0);
        return u;
    }

    private static ObjectNode envelope(Call c, String id, String object) {
        ObjectNode o = Wire.obj();
        o.put("id", id);
        o.put("object", object);
        o.put("created", c.createdEpochSeconds());
        o.put("model", c.model());
        return o;
    }

    private static String chatId(Call c) {
        return "chatcmpl-" + c.requestId().substring(4);
    }

    static ObjectNode chat(Call c, Generation g) {
        ObjectNode o = envelope(c, chatId(c), "chat.completion");
        ObjectNode choice = o.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (g.callsTool()) {
            message.putNull("content");
            ToolUse t = g.tool().orElseThrow();
            ObjectNode call = message.putArray("tool_calls").addObject().put("id", callId(g)).put("type", "function");
            call.putObject("function").put("name", t.name()).put("arguments", t.argumentsJson());
        } else {
            message.put("content", g.fullText());
        }
        message.putNull("refusal");
        message.putArray("annotations");
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason(g));
        o.set("usage", usage(c, g));
        o.put("service_tier", "default");
        o.put("system_fingerprint", FINGERPRINT);
        return o;
    }

    private static ObjectNode chatChunk(Call c, JsonNode delta, String finishReason) {
        ObjectNode o = envelope(c, chatId(c), "chat.completion.chunk");
        o.put("system_fingerprint", FINGERPRINT);
        ObjectNode choice = o.putArray("choices").addObject();
        choice.put("index", 0);
        choice.set("delta", delta);
        choice.putNull("logprobs");
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        if (c.includeUsage()) {
            o.putNull("usage");
        }
        return o;
    }

    static StreamPlan chatStream(Call c, Generation g, int perChunk) {
        ObjectNode first = Wire.obj().put("role", "assistant");
        if (g.callsTool()) {
            first.putNull("content");
            ToolUse t = g.tool().orElseThrow();
            ObjectNode call = first.putArray("tool_calls").addObject().put("index", 0).put("id", callId(g))
                    .put("type", "function");
            call.putObject("function").put("name", t.name()).put("arguments", "");
        } else {
            first.put("content", "");
        }
        first.putNull("refusal");
        List<Chunk> head = List.of(Chunk.of(Wire.sse(chatChunk(c, first, null))));
        List<Chunk> content = new ArrayList<>();
        long from = 0;
        for (long size : StreamPlan.split(g.outputTokens(), perChunk)) {
            ObjectNode delta = Wire.obj();
            if (g.callsTool()) {
                delta.putArray("tool_calls").addObject().put("index", 0).putObject("function")
                        .put("arguments", g.tool().orElseThrow().fragment(from, size));
            } else {
                delta.put("content", g.text(from, size));
            }
            content.add(new Chunk(Wire.sse(chatChunk(c, delta, null)), size));
            from += size;
        }
        List<Chunk> tail = new ArrayList<>();
        tail.add(Chunk.of(Wire.sse(chatChunk(c, Wire.obj(), finishReason(g)))));
        if (c.includeUsage()) {
            ObjectNode last = envelope(c, chatId(c), "chat.completion.chunk");
            last.put("system_fingerprint", FINGERPRINT);
            last.putArray("choices");
            last.set("usage", usage(c, g));
            tail.add(Chunk.of(Wire.sse(last)));
        }
        tail.add(Chunk.of(Buffer.buffer("data: [DONE]\n\n")));
        return StreamPlan.of(StreamPlan.SSE, head, content, tail);
    }

    private static String completionId(Call c) {
        return "cmpl-" + c.requestId().substring(4);
    }

    private static ObjectNode completionChunk(Call c, String text, String finishReason) {
        ObjectNode o = envelope(c, completionId(c), "text_completion");
        ObjectNode choice = o.putArray("choices").addObject();
        choice.put("text", text);
        choice.put("index", 0);
        choice.putNull("logprobs");
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        return o;
    }

    static ObjectNode completion(Call c, Generation g) {
        ObjectNode o = completionChunk(c, g.fullText(), finishReason(g));
        o.set("usage", usage(c, g));
        return o;
    }

    static StreamPlan completionStream(Call c, Generation g, int perChunk) {
        List<Chunk> content = new ArrayList<>();
        long from = 0;
        for (long size : StreamPlan.split(g.outputTokens(), perChunk)) {
            ObjectNode chunk = completionChunk(c, g.text(from, size), null);
            if (c.includeUsage()) {
                chunk.putNull("usage");
            }
            content.add(new Chunk(Wire.sse(chunk), size));
            from += size;
        }
        List<Chunk> tail = new ArrayList<>();
        ObjectNode end = completionChunk(c, "", finishReason(g));
        if (c.includeUsage()) {
            end.putNull("usage");
        }
        tail.add(Chunk.of(Wire.sse(end)));
        if (c.includeUsage()) {
            ObjectNode last = envelope(c, completionId(c), "text_completion");
            last.putArray("choices");
            last.set("usage", usage(c, g));
            tail.add(Chunk.of(Wire.sse(last)));
        }
        tail.add(Chunk.of(Buffer.buffer("data: [DONE]\n\n")));
        return StreamPlan.of(StreamPlan.SSE, List.of(), content, tail);
    }

    static ObjectNode embeddings(Call c) {
        ObjectNode o = Wire.obj();
        o.put("object", "list");
        ArrayNode data = o.putArray("data");
        JsonNode input = c.body().path("input");
        int items = input.isArray() && input.size() > 0 && !input.get(0).isNumber() ? input.size() : 1;
        for (int i = 0; i < items; i++) {
            ObjectNode e = data.addObject();
            e.put("object", "embedding");
            e.put("index", i);
            ArrayNode vector = e.putArray("embedding");
            long h = c.requestId().hashCode() * 31L + i;
            for (int d = 0; d < 8; d++) {
                h = h * 6364136223846793005L + 1442695040888963407L;
                vector.add(((h >>> 40) % 2000) / 1000.0 - 1.0);
            }
        }
        o.put("model", c.model());
        ObjectNode usage = o.putObject("usage");
        usage.put("prompt_tokens", c.promptTokens());
        usage.put("total_tokens", c.promptTokens());
        return o;
    }

    static ObjectNode models(List<String> ids) {
        ObjectNode o = Wire.obj();
        o.put("object", "list");
        ArrayNode data = o.putArray("data");
        for (String id : ids) {
            data.addObject().put("id", id).put("object", "model").put("created", 1_700_000_000L)
                    .put("owned_by", "sluice-mock");
        }
        return o;
    }

    /** Responses API usage: cached tokens are part of {@code input_tokens}. */
    static ObjectNode responsesUsage(Call c, Generation g) {
        ObjectNode u = Wire.obj();
        u.put("input_tokens", c.promptTokens());
        u.putObject("input_tokens_details").put("cached_tokens", c.cacheReadTokens());
        u.put("output_tokens", g.outputTokens());
        u.putObject("output_tokens_details").put("reasoning_tokens", 0);
        u.put("total_tokens", c.promptTokens() + g.outputTokens());
        return u;
    }

    private static String responseId(Call c) {
        return "resp_" + c.requestId().substring(4);
    }

    private static String messageId(Call c) {
        return "msg_" + c.requestId().substring(4);
    }

    private static ObjectNode response(Call c, Generation g, boolean done) {
        ObjectNode o = Wire.obj();
        o.put("id", responseId(c));
        o.put("object", "response");
        o.put("created_at", c.createdEpochSeconds());
        o.put("status", done ? (g.hitMaxTokens() ? "incomplete" : "completed") : "in_progress");
        o.put("model", c.model());
        ArrayNode output = o.putArray("output");
        if (done && g.callsTool()) {
            output.add(functionCall(c, g, true));
            o.putNull("incomplete_details");
            o.set("usage", responsesUsage(c, g));
        } else if (done) {
            ObjectNode item = output.addObject();
            item.put("type", "message");
            item.put("id", messageId(c));
            item.put("status", "completed");
            item.put("role", "assistant");
            ObjectNode text = item.putArray("content").addObject();
            text.put("type", "output_text");
            text.put("text", g.fullText());
            text.putArray("annotations");
            if (g.hitMaxTokens()) {
                o.putObject("incomplete_details").put("reason", "max_output_tokens");
            }
            o.set("usage", responsesUsage(c, g));
        } else {
            o.putNull("usage");
        }
        return o;
    }

    static ObjectNode responses(Call c, Generation g) {
        return response(c, g, true);
    }

    private static String functionCallId(Call c) {
        return "fc_" + c.requestId().substring(4);
    }

    private static ObjectNode functionCall(Call c, Generation g, boolean done) {
        ToolUse t = g.tool().orElseThrow();
        return Wire.obj().put("type", "function_call").put("id", functionCallId(c)).put("call_id", callId(g))
                .put("name", t.name()).put("arguments", done ? t.argumentsJson() : "")
                .put("status", done ? "completed" : "in_progress");
    }

    private static StreamPlan responsesToolStream(Call c, Generation g, int perChunk) {
        int[] seq = {0};
        List<Chunk> head = List.of(
                Chunk.of(event(seq, "response.created", Wire.obj().set("response", response(c, g, false)))),
                Chunk.of(event(seq, "response.in_progress", Wire.obj().set("response", response(c, g, false)))),
                Chunk.of(event(seq, "response.output_item.added",
                        Wire.obj().put("output_index", 0).set("item", functionCall(c, g, false)))));
        List<Chunk> content = new ArrayList<>();
        long from = 0;
        for (long size : StreamPlan.split(g.outputTokens(), perChunk)) {
            ObjectNode delta = Wire.obj().put("item_id", functionCallId(c)).put("output_index", 0)
                    .put("delta", g.tool().orElseThrow().fragment(from, size));
            content.add(new Chunk(event(seq, "response.function_call_arguments.delta", delta), size));
            from += size;
        }
        List<Chunk> tail = List.of(
                Chunk.of(event(seq, "response.function_call_arguments.done", Wire.obj().put("item_id", functionCallId(c))
                        .put("output_index", 0).put("arguments", g.tool().orElseThrow().argumentsJson()))),
                Chunk.of(event(seq, "response.output_item.done",
                        Wire.obj().put("output_index", 0).set("item", functionCall(c, g, true)))),
                Chunk.of(event(seq, "response.completed", Wire.obj().set("response", response(c, g, true)))));
        return StreamPlan.of(StreamPlan.SSE, head, content, tail);
    }

    static StreamPlan responsesStream(Call c, Generation g, int perChunk) {
        if (g.callsTool()) {
            return responsesToolStream(c, g, perChunk);
        }
        int[] seq = {0};
        List<Chunk> head = List.of(
                Chunk.of(event(seq, "response.created", Wire.obj().set("response", response(c, g, false)))),
                Chunk.of(event(seq, "response.in_progress", Wire.obj().set("response", response(c, g, false)))));
        List<Chunk> content = new ArrayList<>();
        long from = 0;
        for (long size : StreamPlan.split(g.outputTokens(), perChunk)) {
            ObjectNode delta = Wire.obj().put("item_id", messageId(c)).put("output_index", 0).put("content_index", 0)
                    .put("delta", g.text(from, size));
            content.add(new Chunk(event(seq, "response.output_text.delta", delta), size));
            from += size;
        }
        ObjectNode done = Wire.obj().put("item_id", messageId(c)).put("output_index", 0).put("content_index", 0)
                .put("text", g.fullText());
        List<Chunk> tail = List.of(
                Chunk.of(event(seq, "response.output_text.done", done)),
                Chunk.of(event(seq, "response.completed", Wire.obj().set("response", response(c, g, true)))));
        return StreamPlan.of(StreamPlan.SSE, head, content, tail);
    }

    private static Buffer event(int[] seq, String type, ObjectNode fields) {
        ObjectNode data = Wire.obj().put("type", type).put("sequence_number", seq[0]++);
        data.setAll(fields);
        return Wire.sse(type, data);
    }
}
