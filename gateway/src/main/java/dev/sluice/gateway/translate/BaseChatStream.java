package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The shared life cycle of a translating stream converter: parse, hand events over, close exactly
 * once. Subclasses write events as strings; each call's events leave as one array of bytes. An
 * upstream read that completes events none of which has a chat form (Anthropic's pings, thinking
 * deltas) yields {@link #KEEP_ALIVE}, so the client sees bytes while the model thinks.
 */
abstract class BaseChatStream implements ChatStreamConverter {

    private static final byte[] NOTHING = new byte[0];

    /** What a read whose events all come to nothing downstream yields: an SSE comment, which clients skip. */
    static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private final SseParser parser = new SseParser();
    private final StreamUsageTracker tracker;
    private boolean closed;
    private boolean completed;

    BaseChatStream(WireFormat format) {
        this.tracker = StreamUsageTracker.of(format);
    }

    /** Handles one upstream event whose data is JSON; may call {@link #complete} or {@link #abort}. */
    abstract void onEvent(SseEvent event, JsonNode data, List<String> out);

    /** Handles an event whose data is not JSON (OpenAI's [DONE]); default: the upstream is broken. */
    void onRawEvent(SseEvent event, List<String> out) {
        abort(out, ProviderErrors.error("upstream sent malformed stream data", "upstream_error"));
    }

    /** The upstream ended while the converter was still open. */
    abstract void onEnd(List<String> out);

    @Override
    public final byte[] feed(byte[] chunk) {
        Objects.requireNonNull(chunk, "chunk");
        if (closed) {
            return NOTHING;
        }
        List<String> out = new ArrayList<>();
        boolean completedEvents = false;
        try {
            List<SseEvent> events = parser.feed(chunk);
            completedEvents = !events.isEmpty();
            handle(events, out);
        } catch (UpstreamFormatException e) {
            abort(out, ProviderErrors.error(e.getMessage(), "upstream_error"));
        }
        if (out.isEmpty() && completedEvents) {
            // Pings and thinking have no chat form; a comment keeps the client, and every proxy on the way, from
            // taking a model that thinks for minutes for a dead connection.
            return KEEP_ALIVE.clone();
        }
        return wire(out);
    }

    @Override
    public final byte[] finish() {
        if (closed) {
            return NOTHING;
        }
        List<String> out = new ArrayList<>();
        try {
            handle(parser.finish(), out);
        } catch (UpstreamFormatException e) {
            abort(out, ProviderErrors.error(e.getMessage(), "upstream_error"));
        }
        if (!closed) {
            onEnd(out);
        }
        return wire(out);
    }

    @Override
    public final byte[] fail(String message) {
        Objects.requireNonNull(message, "message");
        if (closed) {
            return NOTHING;
        }
        List<String> out = new ArrayList<>(2);
        abort(out, ProviderErrors.error(message, "upstream_error"));
        return wire(out);
    }

    @Override
    public final boolean completed() {
        return completed;
    }

    @Override
    public final boolean closed() {
        return closed;
    }

    @Override
    public final StreamUsageTracker usage() {
        return tracker;
    }

    /** The answer is complete: write {@code [DONE]} and close. */
    final void complete(List<String> out) {
        completed = true;
        closed = true;
        out.add(ChatChunks.DONE);
    }

    /** The answer is broken: write the error event and {@code [DONE]}, and close. */
    final void abort(List<String> out, ObjectNode errorBody) {
        closed = true;
        out.add(ChatChunks.error(errorBody));
        out.add(ChatChunks.DONE);
    }

    /** The events of one call as the bytes that go out: one array, so one write and one HTTP chunk. */
    private static byte[] wire(List<String> events) {
        if (events.isEmpty()) {
            return NOTHING;
        }
        if (events.size() == 1) {
            return events.get(0).getBytes(StandardCharsets.UTF_8);
        }
        StringBuilder all = new StringBuilder();
        for (String e : events) {
            all.append(e);
        }
        return all.toString().getBytes(StandardCharsets.UTF_8);
    }

    private void handle(List<SseEvent> events, List<String> out) {
        for (SseEvent event : events) {
            if (closed) {
                return;
            }
            if (event.isDone()) {
                onRawEvent(event, out);
            } else {
                onData(event, out);
            }
        }
    }

    /**
     * Handles an event with data: parsed into a tree, observed for usage, then {@link #onEvent};
     * {@link #onRawEvent} when the data is not JSON.
     */
    private void onData(SseEvent event, List<String> out) {
        Optional<JsonNode> data = Json.parse(event.data());
        if (data.isPresent()) {
            tracker.observe(event.event(), data.get());
            onEvent(event, data.get(), out);
        } else {
            onRawEvent(event, out);
        }
    }
}
