package dev.sluice.gateway.proxy;

import dev.sluice.gateway.upstream.UpstreamCallHandle;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One answer's place in the {@link TranslationBudget} while it is gathered to be translated.
 * When the budget has no room for its next piece, the provider is paused (TCP holds the rest),
 * what the current read still delivers is kept aside ({@link #park}), and either room is made
 * (the kept pieces are handed back, the provider read again) or the wait runs out
 * ({@code server.translation_wait}). Confined to the request's event loop.
 */
final class TranslationRoom {

    private final TranslationBudget.Hold hold;
    private final Vertx vertx;
    private final Context context;
    private final long waitMillis;
    private final UpstreamCallHandle call;
    /** Pieces of the answer that arrived while waiting, in order; null when not waiting. */
    private List<Buffer> parked;
    private boolean endParked;
    private long timer = -1;
    private boolean closed;

    TranslationRoom(TranslationBudget budget, Vertx vertx, Context context, long waitMillis, UpstreamCallHandle call) {
        this.hold = budget.open();
        this.vertx = vertx;
        this.context = context;
        this.waitMillis = waitMillis;
        this.call = call;
    }

    /** Whether it waits for room: what arrives meanwhile is {@linkplain #park parked}. */
    boolean waiting() {
        return parked != null;
    }

    /**
     * Room for {@code total} bytes of answer in all: true when it has it now. Otherwise the
     * provider is paused, {@code piece} kept, and later either {@code onRoom} runs (take back the
     * pieces with {@link #unpark}) or, past the wait, {@code onTimeout} (its room given back).
     */
    boolean reserve(long total, Buffer piece, Runnable onRoom, Runnable onTimeout) {
        if (hold.reserve(total, () -> context.runOnContext(v -> {
            if (!closed && parked != null) {
                vertx.cancelTimer(timer);
                timer = -1;
                onRoom.run();
            }
        }))) {
            return true;
        }
        parked = new ArrayList<>(List.of(piece));
        call.pause();
        timer = vertx.setTimer(waitMillis, id -> {
            timer = -1;
            if (!closed && parked != null) {
                close();
                onTimeout.run();
            }
        });
        return false;
    }

    /** Keeps a piece that arrived while waiting (the provider's read was under way when it was paused). */
    void park(Buffer piece) {
        parked.add(piece);
    }

    /** The answer ended while waiting: it is ended once its pieces are gathered. */
    void parkEnd() {
        endParked = true;
    }

    /** Room was made: the pieces kept, in order, and whether the answer had ended; the provider is read again. */
    List<Buffer> unpark() {
        List<Buffer> p = parked;
        parked = null;
        call.resume();
        return p;
    }

    /** Whether the answer ended while waiting (asked once room was made). */
    boolean endedMeanwhile() {
        boolean e = endParked;
        endParked = false;
        return e;
    }

    /** The answer is done with (translated, failed or abandoned): its room goes back. Idempotent. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        parked = null;
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        hold.close();
    }
}
