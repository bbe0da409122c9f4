package dev.sluice.gateway.translate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Incremental server-sent-events parser. Feed it bytes as they arrive, split anywhere (inside a
 * line, between {@code \r} and {@code \n}, inside a multi-byte UTF-8 character); it returns the
 * events completed so far, decoded.
 *
 * <p>Follows the WHATWG event-stream rules: lines end with {@code \r\n}, {@code \n} or {@code \r};
 * a blank line dispatches; {@code data:} lines accumulate joined by {@code \n}; one space after the
 * colon is dropped; lines starting with {@code :} are comments; {@code id} and {@code retry} are
 * ignored; an event without data is not dispatched; a leading byte-order mark is skipped. Unlike
 * the specification, {@link #finish()} still dispatches a last event that lacks its blank line,
 * because some upstreams close right after the final data line. The events are cut out by
 * {@link SseFramer}, which a relay that forwards events as they came uses directly.
 *
 * <p>Not thread-safe: one parser per stream.
 */
public final class SseParser {

    /** Default cap on one line (and on one event), far above any real one; more means a broken upstream. */
    public static final int DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

    private final SseFramer framer;
    private final SseFramer.Receiver onFrame = this::onFrame;
    private List<SseEvent> out = List.of();

    /** A parser with {@link #DEFAULT_MAX_LINE_BYTES}. */
    public SseParser() {
        this(DEFAULT_MAX_LINE_BYTES);
    }

    /** @param maxLineBytes the longest line accepted, in bytes */
    public SseParser(int maxLineBytes) {
        this.framer = new SseFramer(maxLineBytes);
    }

    /**
     * Consumes a chunk.
     *
     * @return the events completed by this chunk, in order (often none)
     * @throws UpstreamFormatException when a line or an unfinished event exceeds the size cap
     */
    public List<SseEvent> feed(byte[] chunk) {
        Objects.requireNonNull(chunk, "chunk");
        framer.feed(chunk, onFrame);
        return taken();
    }

    /**
     * Ends the stream: an unterminated last event with data is dispatched.
     */
    public List<SseEvent> finish() {
        framer.finish(onFrame);
        return taken();
    }

    private void onFrame(SseFramer.Frame frame) {
        if (!frame.hasData()) {
            return;
        }
        if (out.isEmpty()) {
            out = new ArrayList<>(4);
        }
        out.add(new SseEvent(frame.eventName(),
                new String(frame.data(), frame.dataFrom(), frame.dataTo() - frame.dataFrom(), StandardCharsets.UTF_8)));
    }

    private List<SseEvent> taken() {
        List<SseEvent> events = out;
        out = List.of();
        return events;
    }
}
