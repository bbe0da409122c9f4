package dev.sluice.gateway.translate;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Cuts a server-sent-events byte stream into whole events without decoding them, for a relay that
 * forwards events as they came and only looks into each. Feed it bytes split anywhere; it hands
 * every completed {@link Frame} to the caller while the bytes are still where they arrived, and
 * keeps a copy only of an event that a chunk leaves unfinished.
 *
 * <p>A frame is every byte from the end of one blank line to the end of the next, so the frames
 * laid end to end are exactly the stream: comments, {@code id} and {@code retry} lines and an
 * event's blank line travel inside their frame. Line ends are {@code \r\n}, {@code \n} or
 * {@code \r}, as {@link SseParser} reads them. When a chunk ends between the CR and the LF of a
 * blank line, the frame is handed over without the LF, which follows on its own as a
 * {@linkplain Frame#continuation() continuation}: whoever forwards frames forwards it with the
 * frame before, so that the bytes forwarded never depend on where chunks end.
 *
 * <p>Not thread-safe: one framer per stream.
 */
final class SseFramer {

    /** Receives the frames of a stream, in order. */
    interface Receiver {
        /** One frame; its bytes and data are valid only during the call. */
        void frame(Frame frame);
    }

    private static final byte[] DATA = {'d', 'a', 't', 'a'};
    private static final byte[] EVENT = {'e', 'v', 'e', 'n', 't'};

    private final int maxLineBytes;
    private final Frame frame = new Frame();
    /** The unfinished frame that earlier chunks began. */
    private byte[] pending = new byte[0];
    private int pendingLength;
    private int lineLength;
    private boolean atLineStart = true;
    private boolean afterCr;
    /** The last frame ended with the CR of a blank line at the end of a chunk: a LF next belongs to it. */
    private boolean lfOwed;
    private boolean beforeFirstFrame = true;

    /** @param maxLineBytes the longest line accepted, in bytes; a longer one means a broken upstream */
    SseFramer(int maxLineBytes) {
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("maxLineBytes: " + maxLineBytes + " (expected: > 0)");
        }
        this.maxLineBytes = maxLineBytes;
    }

    /**
     * Consumes a chunk, handing {@code receiver} each frame it completes.
     *
     * @throws UpstreamFormatException when a line or an unfinished frame exceeds the size cap
     */
    void feed(byte[] chunk, Receiver receiver) {
        Objects.requireNonNull(chunk, "chunk");
        int start = 0;
        for (int i = 0; i < chunk.length; i++) {
            byte b = chunk[i];
            if (afterCr) {
                afterCr = false;
                boolean owed = lfOwed;
                lfOwed = false;
                if (b == '\n') {
                    if (owed) {
                        frame.readContinuation(chunk, i);
                        receiver.frame(frame);
                        start = i + 1;
                    }
                    continue; // the second half of a CRLF
                }
            }
            if (b == '\n' || b == '\r') {
                if (atLineStart) {
                    int end = i + 1;
                    if (b == '\r') {
                        if (end < chunk.length) {
                            if (chunk[end] == '\n') {
                                end++; // the LF of the blank line's CRLF stays with its frame
                            }
                        } else {
                            afterCr = true;
                            lfOwed = true;
                        }
                    }
                    emit(chunk, start, end, receiver);
                    start = end;
                    i = end - 1;
                } else {
                    afterCr = b == '\r';
                    atLineStart = true;
                    lineLength = 0;
                }
            } else {
                atLineStart = false;
                if (++lineLength > maxLineBytes) {
                    throw new UpstreamFormatException("event-stream line longer than " + maxLineBytes + " bytes");
                }
            }
        }
        keep(chunk, start, chunk.length);
    }

    /**
     * The stream ended: an unfinished frame that holds data is handed over as the last one (some
     * upstreams close right after their final data line), without the blank line it lacks.
     */
    void finish(Receiver receiver) {
        if (pendingLength > 0) {
            frame.read(pending, 0, pendingLength, beforeFirstFrame);
            pendingLength = 0;
            beforeFirstFrame = false;
            if (frame.hasData()) {
                receiver.frame(frame);
            }
        }
    }

    /**
     * For a reader that stopped framing (the stream's end came): whether {@code chunk} begins with
     * the LF that completes the last frame's blank line, which a chunk end had cut off. Either way
     * nothing more is owed.
     */
    boolean takeOwedLf(byte[] chunk) {
        if (chunk.length == 0) {
            return false;
        }
        boolean owed = lfOwed && chunk[0] == '\n';
        lfOwed = false;
        afterCr = false;
        return owed;
    }

    /** Whether bytes of an unfinished frame are held. */
    boolean holding() {
        return pendingLength > 0;
    }

    private void emit(byte[] chunk, int from, int to, Receiver receiver) {
        if (pendingLength == 0) {
            frame.read(chunk, from, to, beforeFirstFrame);
        } else {
            keep(chunk, from, to);
            frame.read(pending, 0, pendingLength, beforeFirstFrame);
            pendingLength = 0;
        }
        beforeFirstFrame = false;
        receiver.frame(frame);
    }

    private void keep(byte[] chunk, int from, int to) {
        int n = to - from;
        if (n == 0) {
            return;
        }
        if (n > maxLineBytes - pendingLength) {
            throw new UpstreamFormatException("event-stream event longer than " + maxLineBytes + " bytes");
        }
        if (pendingLength + n > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pendingLength + n, Math.min(maxLineBytes, pending.length * 2)));
        }
        System.arraycopy(chunk, from, pending, pendingLength, n);
        pendingLength += n;
    }

    /**
     * One event's bytes as they came, and where its data is. Reused from frame to frame, so that
     * framing allocates nothing for an event that arrives whole: read it during the call only.
     */
    static final class Frame {
        private byte[] bytes;
        private int from;
        private int to;
        private boolean continuation;
        private int eventFrom;
        private int eventTo;
        private boolean hasData;
        private byte[] data;
        private int dataFrom;
        private int dataTo;

        /** The array holding the frame's bytes, from {@link #from()} to {@link #to()}. */
        byte[] bytes() {
            return bytes;
        }

        int from() {
            return from;
        }

        int to() {
            return to;
        }

        /** The value of the last {@code event} field, decoded; {@link SseEvent#DEFAULT_EVENT} when none or empty. */
        String eventName() {
            return eventFrom == eventTo ? SseEvent.DEFAULT_EVENT
                    : new String(bytes, eventFrom, eventTo - eventFrom, StandardCharsets.UTF_8);
        }

        /** Whether the frame is only the LF that ends the previous frame's blank line, which a chunk cut off. */
        boolean continuation() {
            return continuation;
        }

        /** Whether the frame has a {@code data} field, that is whether it is an event a client dispatches. */
        boolean hasData() {
            return hasData;
        }

        /** The array holding the data (the data lines joined by {@code \n}), from {@link #dataFrom()} to {@link #dataTo()}. */
        byte[] data() {
            return data;
        }

        int dataFrom() {
            return dataFrom;
        }

        int dataTo() {
            return dataTo;
        }

        /** Whether the data is {@code [DONE]}, OpenAI's end of stream, give or take white space. */
        boolean isDone() {
            int a = dataFrom;
            int b = dataTo;
            while (a < b && isSpace(data[a])) {
                a++;
            }
            while (b > a && isSpace(data[b - 1])) {
                b--;
            }
            return b - a == 6 && data[a] == '[' && data[a + 1] == 'D' && data[a + 2] == 'O' && data[a + 3] == 'N'
                    && data[a + 4] == 'E' && data[a + 5] == ']';
        }

        /** Whether the line {@code [start, lineEnd)} is the field {@code name} (followed by a colon or nothing). */
        private static boolean isField(byte[] array, int start, int lineEnd, byte[] name) {
            return lineEnd - start >= name.length && Arrays.equals(array, start, start + name.length, name, 0, name.length)
                    && (lineEnd - start == name.length || array[start + name.length] == ':');
        }

        /** Where the value of a field whose name ends at {@code nameEnd} begins: after the colon and one space. */
        private static int valueStart(int nameEnd, int lineEnd, byte[] array) {
            int v = Math.min(nameEnd + 1, lineEnd);
            return v < lineEnd && array[v] == ' ' ? v + 1 : v;
        }

        private static boolean isSpace(byte b) {
            return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == 0x0B;
        }

        void readContinuation(byte[] array, int at) {
            this.bytes = array;
            this.from = at;
            this.to = at + 1;
            this.continuation = true;
            this.eventFrom = 0;
            this.eventTo = 0;
            this.hasData = false;
        }

        /** Finds the data lines of {@code [from, to)}; the usual single one is not copied. */
        void read(byte[] array, int start, int end, boolean streamStart) {
            this.bytes = array;
            this.from = start;
            this.to = end;
            this.continuation = false;
            this.eventFrom = 0;
            this.eventTo = 0;
            this.hasData = false;
            byte[] joined = null;
            int joinedLength = 0;
            int i = start;
            if (streamStart && end - start >= 3 && array[i] == (byte) 0xEF && array[i + 1] == (byte) 0xBB
                    && array[i + 2] == (byte) 0xBF) {
                i += 3; // a byte-order mark
            }
            while (i < end) {
                int lineEnd = i;
                while (lineEnd < end && array[lineEnd] != '\n' && array[lineEnd] != '\r') {
                    lineEnd++;
                }
                if (isField(array, i, lineEnd, EVENT)) {
                    eventFrom = valueStart(i + EVENT.length, lineEnd, array);
                    eventTo = lineEnd;
                } else if (isField(array, i, lineEnd, DATA)) {
                    int v = valueStart(i + DATA.length, lineEnd, array);
                    if (!hasData) {
                        hasData = true;
                        data = array;
                        dataFrom = v;
                        dataTo = lineEnd;
                    } else {
                        // A second data line: the data becomes the lines joined, in an array of its own.
                        if (joined == null) {
                            joined = Arrays.copyOfRange(array, dataFrom, Math.max(dataTo, dataFrom + end - start));
                            joinedLength = dataTo - dataFrom;
                        }
                        joined[joinedLength++] = '\n';
                        System.arraycopy(array, v, joined, joinedLength, lineEnd - v);
                        joinedLength += lineEnd - v;
                        data = joined;
                        dataFrom = 0;
                        dataTo = joinedLength;
                    }
                }
                i = lineEnd + 1;
            }
        }
    }
}
