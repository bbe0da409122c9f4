package dev.sluice.gateway.translate;

import java.util.Objects;

/**
 * One dispatched server-sent event.
 *
 * @param event the event name; {@value #DEFAULT_EVENT} when the stream gave none
 * @param data  the data lines joined with {@code \n}
 */
public record SseEvent(String event, String data) {

    /** The name of an event without an {@code event:} field, as in the SSE specification. */
    public static final String DEFAULT_EVENT = "message";

    /** Validates that both fields are present. */
    public SseEvent {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(data, "data");
    }

    /** Whether this is OpenAI's end-of-stream marker {@code data: [DONE]}. */
    public boolean isDone() {
        return data.strip().equals("[DONE]");
    }
}
