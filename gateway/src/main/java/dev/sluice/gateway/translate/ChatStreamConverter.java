package dev.sluice.gateway.translate;

import java.util.List;

/**
 * Turns one upstream SSE stream into the OpenAI chat.completion.chunk stream the client reads,
 * incrementally. Each returned string is one complete downstream event including its blank line
 * ({@code "data: {...}\n\n"}); write them out in order. The last event is always
 * {@code "data: [DONE]\n\n"}, after which the converter is {@link #closed()} and returns nothing.
 *
 * <p>An upstream {@code error} event, malformed upstream data, or an upstream that ends early
 * becomes an OpenAI-style error event ({@code data: {"error":{...}}}, which the OpenAI SDKs raise)
 * followed by {@code [DONE]}. Not thread-safe: one converter per stream.
 */
public interface ChatStreamConverter {

    /** Consumes upstream bytes, split anywhere; returns the downstream events they complete. */
    List<String> feed(byte[] chunk);

    /**
     * The upstream response ended. Returns the closing events: the finish chunk, the usage chunk
     * when asked for, and {@code [DONE]} after a complete stream; an error event and {@code [DONE]}
     * after an incomplete one. Empty when already closed.
     */
    List<String> finish();

    /**
     * Ends the stream on the gateway's initiative (upstream timeout, reset): an error event with
     * {@code message} and {@code [DONE]}. Empty when already closed.
     */
    List<String> fail(String message);

    /** Whether the upstream finished its answer normally (not broken, not an error event). */
    boolean completed();

    /** Whether {@code [DONE]} was emitted; later calls return nothing. */
    boolean closed();

    /** The usage seen in this stream so far, for settlement; see {@link StreamUsageTracker}. */
    StreamUsageTracker usage();
}
