package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * OpenAI chat (or legacy completions) SSE passed through as the bytes that came, event by event,
 * except the extra usage chunk, which is dropped when the gateway asked for it on the client's
 * behalf. Events are framed without decoding ({@link SseFramer}) and their data read with a
 * streaming parser for what matters (finish, text, usage); a read whose events all pass returns
 * its own bytes, so the usual stream is forwarded without a copy.
 *
 * <p>Comments, {@code id} and {@code retry} lines and events without data go on too: a client's
 * SSE reader skips them, and a comment is often the upstream's keep-alive.
 */
final class OpenAiChatStream implements ChatStreamConverter {

    private static final byte[] NOTHING = new byte[0];
    private static final byte[] DONE = ChatChunks.DONE.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BLANK_LINE = {'\n', '\n'};
    private static final byte[] LF = {'\n'};

    private final boolean forwardUsageChunk;
    private final SseFramer framer = new SseFramer(SseParser.DEFAULT_MAX_LINE_BYTES);
    private final StreamUsageTracker tracker = StreamUsageTracker.of(WireFormat.OPENAI);
    private final SseFramer.Receiver onFrame = this::onFrame;
    private boolean finishSeen;
    /** Whether the last frame went out, and with it the LF that may follow it as a continuation. */
    private boolean lastPassed;
    private boolean closed;
    private boolean completed;

    /** The chunk being fed. */
    private byte[] chunk;
    /** Whether all that goes out of {@link #chunk} so far is its first {@link #passedInPlace} bytes, left in place. */
    private boolean whole;
    private int passedInPlace;
    /** The bytes of the current call, once they are no longer the chunk's own. */
    private byte[] out = NOTHING;
    private int outLength;
    /** Whether the frame being read is the last, unfinished one that {@link #finish()} hands over. */
    private boolean lastUnfinished;

    OpenAiChatStream(boolean forwardUsageChunk) {
        this.forwardUsageChunk = forwardUsageChunk;
    }

    @Override
    public byte[] feed(byte[] chunk) {
        Objects.requireNonNull(chunk, "chunk");
        if (closed) {
            // Only the LF of [DONE]'s blank line may still belong to what went out.
            return framer.takeOwedLf(chunk) && lastPassed ? LF : NOTHING;
        }
        this.chunk = chunk;
        whole = !framer.holding();
        passedInPlace = 0;
        outLength = 0;
        try {
            framer.feed(chunk, onFrame);
        } catch (UpstreamFormatException e) {
            abort(e.getMessage());
        }
        if (whole && passedInPlace == chunk.length) {
            this.chunk = null;
            return chunk;
        }
        copyPassedInPlace();
        this.chunk = null;
        return taken();
    }

    @Override
    public byte[] finish() {
        if (closed) {
            return NOTHING;
        }
        whole = false;
        outLength = 0;
        lastUnfinished = true;
        framer.finish(onFrame);
        lastUnfinished = false;
        if (!closed) {
            if (finishSeen) {
                // Some OpenAI-compatible servers end without [DONE]; the answer itself was whole.
                complete();
            } else {
                abort("upstream stream ended before the answer was complete");
            }
        }
        return taken();
    }

    @Override
    public byte[] fail(String message) {
        Objects.requireNonNull(message, "message");
        if (closed) {
            return NOTHING;
        }
        whole = false;
        outLength = 0;
        abort(message);
        return taken();
    }

    @Override
    public boolean completed() {
        return completed;
    }

    @Override
    public boolean closed() {
        return closed;
    }

    @Override
    public StreamUsageTracker usage() {
        return tracker;
    }

    private void onFrame(SseFramer.Frame frame) {
        if (frame.continuation()) {
            if (lastPassed) {
                pass(frame);
            } else {
                drop();
            }
            return;
        }
        if (closed) {
            drop();
            return;
        }
        if (!frame.hasData()) {
            pass(frame);
            return;
        }
        if (frame.isDone()) {
            pass(frame);
            closed = true;
            completed = true;
            return;
        }
        Optional<OpenAiChunkScan> scanned = OpenAiChunkScan.of(frame.data(), frame.dataFrom(), frame.dataTo() - frame.dataFrom());
        if (scanned.isEmpty()) {
            abort("upstream sent malformed stream data");
            return;
        }
        OpenAiChunkScan scan = scanned.get();
        boolean usageOnly;
        if (scan.responsesEvent()) {
            // A Responses API event, which an OpenAI-compatible server might mix in: its usage sits deeper.
            JsonNode data = Json.parse(Arrays.copyOfRange(frame.data(), frame.dataFrom(), frame.dataTo())).orElseThrow();
            tracker.observe(SseEvent.DEFAULT_EVENT, data);
            usageOnly = OpenAiChunks.isUsageOnlyChunk(data);
        } else {
            tracker.observeOpenAiChunk(scan.textChars(), scan.usage());
            finishSeen |= scan.finishReason();
            usageOnly = scan.usageOnly();
        }
        if (forwardUsageChunk || !usageOnly) {
            pass(frame);
        } else {
            drop();
        }
    }

    /** The frame goes out as it came. */
    private void pass(SseFramer.Frame frame) {
        lastPassed = true;
        if (whole && frame.bytes() == chunk) {
            passedInPlace = frame.to(); // frames arrive in order, so the chunk up to here all passes
            return;
        }
        copyPassedInPlace();
        append(frame.bytes(), frame.from(), frame.to() - frame.from());
        if (lastUnfinished) {
            // The upstream closed before the event's blank line; the client needs it to read the event.
            byte lastByte = frame.bytes()[frame.to() - 1];
            append(BLANK_LINE, 0, lastByte == '\n' || lastByte == '\r' ? 1 : 2);
        }
    }

    /** The frame does not go out, so the chunk no longer goes out whole. */
    private void drop() {
        lastPassed = false;
        copyPassedInPlace();
    }

    /** Ends forwarding in place: what passed so far is copied to the call's output. */
    private void copyPassedInPlace() {
        if (whole) {
            whole = false;
            append(chunk, 0, passedInPlace);
        }
    }

    private void complete() {
        closed = true;
        completed = true;
        drop();
        append(DONE, 0, DONE.length);
    }

    private void abort(String message) {
        closed = true;
        drop();
        byte[] error = ChatChunks.error(ProviderErrors.error(message, "upstream_error")).getBytes(StandardCharsets.UTF_8);
        append(error, 0, error.length);
        append(DONE, 0, DONE.length);
    }

    private void append(byte[] bytes, int from, int length) {
        if (outLength + length > out.length) {
            out = Arrays.copyOf(out, Math.max(outLength + length, Math.max(256, out.length * 2)));
        }
        System.arraycopy(bytes, from, out, outLength, length);
        outLength += length;
    }

    private byte[] taken() {
        return outLength == 0 ? NOTHING : Arrays.copyOf(out, outLength);
    }
}
