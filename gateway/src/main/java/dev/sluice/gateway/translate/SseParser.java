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
    /** The data of an event with one data line; with more, {@link #data} holds them joined. */
    private String firstData;
    private final StringBuilder data = new StringBuilder();
    private boolean hasData;

    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT = "event".getBytes(StandardCharsets.US_ASCII);

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
        int end = offset + length;
        int i = offset;
        while (i < end) {
            if (afterCr) {
                // A CR may be followed by an LF in the next chunk: together they end one line.
                afterCr = false;
                if (chunk[i] == '\n') {
                    i++;
                    continue;
                }
            }
            // Copy the run up to the next line end at once rather than byte by byte.
            int j = i;
            while (j < end && chunk[j] != '\n' && chunk[j] != '\r') {
                j++;
            }
            append(chunk, i, j - i);
            if (j == end) {
                break;
            }
            afterCr = chunk[j] == '\r';
            SseEvent event = endLine();
            if (event != null) {
                if (out.isEmpty()) {
                    out = new ArrayList<>(4);
                }
                out.add(event);
            }
            i = j + 1;
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

    private void append(byte[] bytes, int from, int n) {
        if (n == 0) {
            return;
        }
        if (n > maxLineBytes - lineLength) {
            throw new UpstreamFormatException("event-stream line longer than " + maxLineBytes + " bytes");
        }
        if (lineLength + n > line.length) {
            line = Arrays.copyOf(line, Math.max(lineLength + n, Math.min(maxLineBytes, line.length * 2)));
        }
        System.arraycopy(bytes, from, line, lineLength, n);
        lineLength += n;
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
        int fieldEnd = colon < 0 ? start + length : colon;
        boolean isData = is(DATA, start, fieldEnd);
        if (!isData && !is(EVENT, start, fieldEnd)) {
            return null; // id, retry and unknown fields do not matter to a proxy
        }
        String value = "";
        if (colon >= 0) {
            int v = colon + 1;
            if (v < start + length && line[v] == ' ') {
                v++;
            }
            value = new String(line, v, start + length - v, StandardCharsets.UTF_8);
        }
        if (isData) {
            if (!hasData) {
                firstData = value; // the usual event has one data line: no builder needed
                hasData = true;
            } else {
                if (data.isEmpty()) {
                    data.append(firstData);
                }
                data.append('\n').append(value);
            }
        } else {
            eventName = value.isEmpty() ? SseEvent.DEFAULT_EVENT : value;
        }
        return null;
    }

    private boolean is(byte[] name, int from, int to) {
        return to - from == name.length && Arrays.equals(line, from, to, name, 0, name.length);
    }

    private SseEvent dispatch() {
        SseEvent event = hasData ? new SseEvent(eventName, data.isEmpty() ? firstData : data.toString()) : null;
        data.setLength(0);
        firstData = null;
        hasData = false;
        eventName = SseEvent.DEFAULT_EVENT;
        return event;
    }
}
