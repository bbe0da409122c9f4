package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A translated chat stream (from {@link ChatStreams#fromAnthropic} or {@link ChatStreams#fromGemini},
 * built with the usage chunk) as the OpenAI Responses API's event stream: {@code response.created},
 * {@code response.in_progress}, then per output item {@code response.output_item.added}, its deltas
 * ({@code response.output_text.delta} within a {@code content_part}, or
 * {@code response.function_call_arguments.delta}) and its {@code .done} events, and last
 * {@code response.completed} (or {@code response.incomplete}) carrying the whole response and its
 * usage. Every event has {@code event:} and a {@code sequence_number}. An error in the chat stream
 * becomes an {@code error} event, after which the stream ends. Usage for settlement is the inner
 * converter's, which read the provider's own events. Not thread-safe.
 */
final class ResponsesStream implements ChatStreamConverter {

    private static final byte[] NOTHING = new byte[0];

    private final ChatStreamConverter inner;
    private final SseParser parser = new SseParser();
    private final List<ObjectNode> items = new ArrayList<>();
    private int sequence;
    private boolean started;
    private boolean closed;
    private boolean completed;
    private String base = "";
    private String model = "";
    private long created;
    private String finishReason = "stop";
    private ObjectNode usage;
    /** The item receiving deltas: a message (text) or a function call; null when none is open. */
    private ObjectNode open;
    private final StringBuilder text = new StringBuilder();
    private final List<Integer> toolIndexes = new ArrayList<>();

    ResponsesStream(ChatStreamConverter inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
    }

    @Override
    public byte[] feed(byte[] chunk) {
        return closed ? NOTHING : translate(inner.feed(chunk));
    }

    @Override
    public byte[] finish() {
        if (closed) {
            return NOTHING;
        }
        byte[] out = translate(inner.finish());
        if (!closed) {
            // The chat stream always closes; should it not, the answer is not whole.
            List<String> events = new ArrayList<>();
            error(events, "upstream stream ended before the answer was complete", "upstream_error");
            return concat(out, wire(events));
        }
        return out;
    }

    @Override
    public byte[] fail(String message) {
        return closed ? NOTHING : translate(inner.fail(message));
    }

    @Override
    public boolean completed() {
        return completed;
    }

    @Override
    public boolean closed() {
        return closed;
    }

    @Override
    public StreamUsageTracker usage() {
        return inner.usage();
    }

    private byte[] translate(byte[] chat) {
        if (chat.length == 0) {
            return NOTHING;
        }
        List<SseEvent> events = parser.feed(chat);
        if (events.isEmpty()) {
            return chat; // a keep-alive comment: it passes as it is
        }
        List<String> out = new ArrayList<>();
        for (SseEvent e : events) {
            if (closed) {
                break;
            }
            if (e.isDone()) {
                done(out);
                continue;
            }
            Optional<JsonNode> data = Json.parse(e.data());
            if (data.isEmpty()) {
                error(out, "upstream sent malformed stream data", "upstream_error");
            } else if (data.get().has("error")) {
                JsonNode err = data.get().path("error");
                error(out, Json.string(err, "message").orElse("upstream error"), Json.string(err, "code")
                        .orElse(Json.stringOr(err, "type")));
            } else {
                chunk(data.get(), out);
            }
        }
        return wire(out);
    }

    private void chunk(JsonNode chunk, List<String> out) {
        if (!started) {
            started = true;
            base = ResponsesAnswers.base(Json.stringOr(chunk, "id"));
            model = Json.stringOr(chunk, "model");
            created = chunk.path("created").asLong();
            ObjectNode progress = ResponsesAnswers.response(base, created, model, "", Json.array(), null);
            emit(out, "response.created", Json.object().set("response", progress));
            emit(out, "response.in_progress", Json.object().set("response", progress.deepCopy()));
        }
        if (chunk.path("usage").isObject()) {
            usage = ResponsesAnswers.usage(chunk.path("usage"));
        }
        JsonNode choice = chunk.path("choices").path(0);
        JsonNode delta = choice.path("delta");
        String content = Json.stringOr(delta, "content");
        if (!content.isEmpty()) {
            if (open == null || !"message".equals(Json.stringOr(open, "type"))) {
                closeOpen(out);
                openItem(out, ResponsesAnswers.messageItem(base, "", "in_progress"));
                emit(out, "response.content_part.added", itemRef().put("content_index", 0)
                        .set("part", ResponsesAnswers.outputText("")));
            }
            text.append(content);
            ObjectNode d = itemRef().put("content_index", 0).put("delta", content);
            d.putArray("logprobs");
            emit(out, "response.output_text.delta", d);
        }
        for (JsonNode call : delta.path("tool_calls")) {
            int index = call.path("index").asInt();
            String arguments = Json.stringOr(call.path("function"), "arguments");
            if (call.has("id")) {
                closeOpen(out);
                openItem(out, ResponsesAnswers.functionCallItem(base, index, Json.stringOr(call, "id"),
                        Json.stringOr(call.path("function"), "name"), "", "in_progress"));
                toolIndexes.add(index);
            }
            if (!arguments.isEmpty() && open != null && "function_call".equals(Json.stringOr(open, "type"))
                    && !toolIndexes.isEmpty() && toolIndexes.getLast() == index) {
                text.append(arguments);
                emit(out, "response.function_call_arguments.delta", itemRef().put("delta", arguments));
            }
        }
        Json.string(choice, "finish_reason").ifPresent(r -> finishReason = r);
    }

    private void openItem(List<String> out, ObjectNode item) {
        open = item;
        text.setLength(0);
        emit(out, "response.output_item.added", Json.object().put("output_index", items.size()).set("item", item.deepCopy()));
    }

    private ObjectNode itemRef() {
        return Json.object().put("item_id", Json.stringOr(open, "id")).put("output_index", items.size());
    }

    /** Ends the open item with its {@code .done} events and keeps it for the final response. */
    private void closeOpen(List<String> out) {
        if (open == null) {
            return;
        }
        String whole = text.toString();
        ObjectNode item = open;
        if ("message".equals(Json.stringOr(item, "type"))) {
            ObjectNode d = itemRef().put("content_index", 0).put("text", whole);
            d.putArray("logprobs");
            emit(out, "response.output_text.done", d);
            emit(out, "response.content_part.done", itemRef().put("content_index", 0)
                    .set("part", ResponsesAnswers.outputText(whole)));
            ((ArrayNode) item.path("content")).add(ResponsesAnswers.outputText(whole));
        } else {
            emit(out, "response.function_call_arguments.done", itemRef().put("arguments", whole));
            item.put("arguments", whole);
        }
        item.put("status", "completed");
        emit(out, "response.output_item.done", Json.object().put("output_index", items.size()).set("item", item.deepCopy()));
        items.add(item);
        open = null;
        text.setLength(0);
    }

    private void done(List<String> out) {
        closeOpen(out);
        ArrayNode output = Json.array();
        items.forEach(output::add);
        ObjectNode u = usage != null ? usage : ResponsesAnswers.usage(ChatUsage.fromObserved(inner.usage().usage()));
        ObjectNode response = ResponsesAnswers.response(base, created, model, finishReason, output, u);
        String type = "incomplete".equals(Json.stringOr(response, "status")) ? "response.incomplete" : "response.completed";
        emit(out, type, Json.object().set("response", response));
        completed = true;
        closed = true;
    }

    private void error(List<String> out, String message, String code) {
        ObjectNode e = Json.object().put("code", code.isEmpty() ? "upstream_error" : code).put("message", message);
        e.putNull("param");
        emit(out, "error", e);
        closed = true;
    }

    private void emit(List<String> out, String type, ObjectNode fields) {
        ObjectNode data = Json.object().put("type", type);
        data.setAll(fields);
        data.put("sequence_number", sequence++);
        out.add("event: " + type + "\ndata: " + Json.write(data) + "\n\n");
    }

    private static byte[] wire(List<String> events) {
        if (events.isEmpty()) {
            return NOTHING;
        }
        return String.join("", events).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
