package dev.sluice.gateway.translate;

/**
 * Turns one upstream SSE stream into the OpenAI chat.completion.chunk stream the client reads,
 * incrementally. Every call returns downstream bytes made of whole events, each ending with its
 * blank line, to be written out in order; an empty array when a call completes none, and an SSE
 * comment when the events it completes have no chat form (pings, thinking). The last
 * event is always {@code data: [DONE]}, after which the converter is {@link #closed()} and
 * returns nothing.
 *
 * <p>An upstream {@code error} event, malformed upstream data, or an upstream that ends early
 * becomes an OpenAI-style error event ({@code data: {"error":{...}}}, which the OpenAI SDKs raise)
 * followed by {@code [DONE]}. Not thread-safe: one converter per stream.
 */
public interface ChatStreamConverter {

    /**
     * Consumes upstream bytes, split anywhere; returns the downstream bytes of the events they
     * complete. A converter that passes events through returns {@code chunk} itself when all of
     * it goes on unchanged, so a caller holding the same bytes in another form may send that.
     */
    byte[] feed(byte[] chunk);

    /**
     * The upstream response ended. Returns the closing events: the finish chunk, the usage chunk
     * when asked for, and {@code [DONE]} after a complete stream; an error event and {@code [DONE]}
     * after an incomplete one. Empty when already closed.
     */
    byte[] finish();

    /**
     * Ends the stream on the gateway's initiative (upstream timeout, reset): an error event with
     * {@code message} and {@code [DONE]}. Empty when already closed.
     */
    byte[] fail(String message);

    /** Whether the upstream finished its answer normally (not broken, not an error event). */
    boolean completed();

    /** Whether {@code [DONE]} was emitted; later calls return nothing. */
    boolean closed();

    /** The usage seen in this stream so far, for settlement; see {@link StreamUsageTracker}. */
    StreamUsageTracker usage();
}
