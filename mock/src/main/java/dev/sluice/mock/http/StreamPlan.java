package dev.sluice.mock.http;

import io.vertx.core.buffer.Buffer;
import java.util.List;

/**
 * A streamed answer laid out in advance: every piece to write, how many output tokens each carries,
 * and where a fault cuts the stream (halfway through the output).
 *
 * @param contentType the response's content type
 * @param chunks the pieces in order
 * @param cutAt the index of the first piece not written when a fault cuts the stream
 */
record StreamPlan(String contentType, List<Chunk> chunks, int cutAt) {

    /** A piece of a stream. */
    record Chunk(Buffer data, long tokens) {
        static Chunk of(Buffer data) {
            return new Chunk(data, 0);
        }
    }

    static final String SSE = "text/event-stream";

    /** Lays out head, content and tail; a fault cuts after half the content pieces. */
    static StreamPlan of(String contentType, List<Chunk> head, List<Chunk> content, List<Chunk> tail) {
        List<Chunk> all = new java.util.ArrayList<>(head.size() + content.size() + tail.size());
        all.addAll(head);
        all.addAll(content);
        all.addAll(tail);
        return new StreamPlan(contentType, List.copyOf(all), head.size() + content.size() / 2);
    }

    /** Output pieces of at most {@code perChunk} tokens each. */
    static long[] split(long tokens, int perChunk) {
        int n = (int) Math.ceilDiv(tokens, perChunk);
        long[] sizes = new long[n];
        for (int i = 0; i < n; i++) {
            sizes[i] = Math.min(perChunk, tokens - (long) i * perChunk);
        }
        return sizes;
    }
}
