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

    /** The event in wire form, ending with the blank line; the default event name is not written. */
    public String toWire() {
        StringBuilder sb = new StringBuilder(data.length() + 16);
        if (!event.equals(DEFAULT_EVENT)) {
            sb.append("event: ").append(event).append('\n');
        }
        int start = 0;
        while (true) {
            int nl = data.indexOf('\n', start);
            sb.append("data: ").append(data, start, nl < 0 ? data.length() : nl).append('\n');
            if (nl < 0) {
                break;
            }
            start = nl + 1;
        }
        return sb.append('\n').toString();
    }
}
