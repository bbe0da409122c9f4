package dev.sluice.runtime.event;

import java.util.Locale;

/** How one provider attempt ended, as an operator reads it. */
public enum AttemptResult {
    /** The provider answered with success (streams: the stream ended cleanly). */
    ANSWERED,
    /** The provider refused with a 429. */
    THROTTLED,
    /** The provider refused the request itself (400, 404, 413, 422 ...): resending cannot help. */
    REFUSED,
    /** Sent, then the provider failed: a 5xx or 529, a timeout, a reset, a broken or unreadable answer. */
    FAILED,
    /** The client went away while the attempt ran. */
    CLIENT_GONE,
    /** Nothing reached the provider (a connection that could not be made, a client gone before sending). */
    NEVER_SENT;

    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** The name in events, rows and metrics: lower case. */
    public String wireName() {
        return wireName;
    }
}
