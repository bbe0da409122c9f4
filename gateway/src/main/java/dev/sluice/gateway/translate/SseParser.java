package dev.sluice.gateway.translate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Incremental server-sent-events parser. Feed it bytes as they arrive, split anywhere (inside a
 * line, between {@code \r} and {@code \n}, inside a multi-byte UTF-8 character); it returns the
 * events completed so far.
 *
 * <p>Follows the WHATWG event-stream rules: lines end with {@code \r\n}, {@code \n} or {@code \r};
 * a blank line dispatches; {@code data:} lines accumulate joined by {@code \n}; one space after the
 * colon is dropped; lines starting with {@code :} are comments; {@code id} and {@code retry} are
 * ignored; an event without data is not dispatched; a leading byte-order mark is skipped. Unlike
 * the specification, {@link #finish()} still dispatches a last event that lacks its blank line,
 * because some upstreams close right after the final data line.
 *
 * <p>Not thread-safe: one parser per stream.
 */
public final class SseParser {

    /** Default cap on one line, far above any real event; a longer line means a broken upstream. */
    public static final int DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

    private final int maxLineBytes;
    private byte[] line = new byte[256];
    private int lineLength;
    private boolean afterCr;
    private boolean atStart = true;
    private String eventName = SseEvent.DEFAULT_EVENT;
    private final StringBuilder data = new StringBuilder();
    private boolean hasData;

    /** A parser with {@link #DEFAULT_MAX_LINE_BYTES}. */
    public SseParser() {
        this(DEFAULT_MAX_LINE_BYTES);
    }

    /** @param maxLineBytes the longest line accepted, in bytes */
    public SseParser(int maxLineBytes) {
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("maxLineBytes: " + maxLineBytes + " (expected: > 0)");
        }
        this.maxLineBytes = maxLineBytes;
    }

    /**
     * Consumes a chunk.
     *
     * @return the events completed by this chunk, in order (often none)
     * @throws UpstreamFormatException when a line exceeds the size cap
     */
    public List<SseEvent> feed(byte[] chunk) {
        Objects.requireNonNull(chunk, "chunk");
        return feed(chunk, 0, chunk.length);
    }

    /** Consumes {@code length} bytes of {@code chunk} from {@code offset}; see {@link #feed(byte[])}. */
    public List<SseEvent> feed(byte[] chunk, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, chunk.length);
        List<SseEvent> out = List.of();
        for (int i = offset; i < offset + length; i++) {
            byte b = chunk[i];
            if (b == '\n' && afterCr) {
                afterCr = false;
                continue;
            }
            afterCr = b == '\r';
            if (b == '\n' || b == '\r') {
                SseEvent event = endLine();
                if (event != null) {
                    if (out.isEmpty()) {
                        out = new ArrayList<>(4);
                    }
                    out.add(event);
                }
            } else {
                append(b);
            }
        }
        return out;
    }

    /**
     * Ends the stream: an unterminated last line is processed and a pending event with data is
     * dispatched.
     */
    public List<SseEvent> finish() {
        List<SseEvent> out = new ArrayList<>(2);
        if (lineLength > 0) {
            SseEvent event = endLine();
            if (event != null) {
                out.add(event);
            }
        }
        SseEvent last = dispatch();
        if (last != null) {
            out.add(last);
        }
        return out;
    }

    private void append(byte b) {
        if (lineLength == maxLineBytes) {
            throw new UpstreamFormatException("event-stream line longer than " + maxLineBytes + " bytes");
        }
        if (lineLength == line.length) {
            line = Arrays.copyOf(line, Math.min(maxLineBytes, line.length * 2));
        }
        line[lineLength++] = b;
    }

    /** Processes the buffered line; returns the event a blank line dispatches, or null. */
    private SseEvent endLine() {
        int start = 0;
        if (atStart) {
            atStart = false;
            if (lineLength >= 3 && line[0] == (byte) 0xEF && line[1] == (byte) 0xBB && line[2] == (byte) 0xBF) {
                start = 3;
            }
        }
        int length = lineLength - start;
        lineLength = 0;
        if (length == 0) {
            return dispatch();
        }
        if (line[start] == ':') {
            return null;
        }
        int colon = -1;
        for (int i = start; i < start + length; i++) {
            if (line[i] == ':') {
                colon = i;
                break;
            }
        }
        String field = new String(line, start, (colon < 0 ? start + length : colon) - start, StandardCharsets.UTF_8);
        String value = "";
        if (colon >= 0) {
            int v = colon + 1;
            if (v < start + length && line[v] == ' ') {
                v++;
            }
            value = new String(line, v, start + length - v, StandardCharsets.UTF_8);
        }
        switch (field) {
            case "data" -> {
                if (hasData) {
                    data.append('\n');
                }
                data.append(value);
                hasData = true;
            }
            case "event" -> eventName = value.isEmpty() ? SseEvent.DEFAULT_EVENT : value;
            default -> {
                // id, retry and unknown fields do not matter to a proxy.
            }
        }
        return null;
    }

    private SseEvent dispatch() {
        SseEvent event = hasData ? new SseEvent(eventName, data.toString()) : null;
        data.setLength(0);
        hasData = false;
        eventName = SseEvent.DEFAULT_EVENT;
        return event;
    }
}
