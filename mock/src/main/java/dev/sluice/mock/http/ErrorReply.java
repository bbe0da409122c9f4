package dev.sluice.mock.http;

import io.vertx.core.buffer.Buffer;

/**
 * An error response, ready to send.
 *
 * @param status the HTTP status
 * @param contentType its content type
 * @param body the body
 * @param hintMillis the wait to announce in {@code Retry-After} / {@code retry-after-ms}; negative for
 *     none (spend caps, requests too large)
 * @param outcome how the attempt is recorded in the statistics
 */
record ErrorReply(int status, String contentType, Buffer body, long hintMillis, String outcome) {

    static final String JSON = "application/json";

    boolean hasHint() {
        return hintMillis >= 0;
    }
}
