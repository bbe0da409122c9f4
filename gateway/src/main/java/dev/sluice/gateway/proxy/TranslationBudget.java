package dev.sluice.gateway.proxy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of whole answers held, over the whole process, to be translated
 * ({@code server.translation_budget_bytes}): an OpenAI route on an Anthropic or Gemini deployment
 * reads the provider's answer whole before rewriting it, and a thousand such answers at once
 * would otherwise hold a thousand answers.
 *
 * <p>Each answer takes a {@link Hold} and asks it for room as it needs it ({@link Hold#reserve}):
 * all it asks for, or nothing and a wait. Waiters are served oldest first, answers already
 * holding bytes (growing) before answers holding none, so that what is held is soon given back.
 * One rule keeps every answer moving: when every answer holding bytes is waiting to grow, nothing
 * would ever be given back, so the oldest grower is given its room anyway; the budget can be
 * passed then, and only then. Thread-safe: answers on every event loop share one budget.
 */
final class TranslationBudget {

    private final long capacity;
    private long held;
    /** Holds with bytes that are not waiting: those that will give bytes back. */
    private int running;
    private final ArrayDeque<Hold> growing = new ArrayDeque<>();
    private final ArrayDeque<Hold> opening = new ArrayDeque<>();

    TranslationBudget(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: > 0)");
        }
        this.capacity = capacity;
    }

    /** A new answer's share, holding nothing yet. */
    Hold open() {
        return new Hold();
    }

    /** Bytes held now, by every answer. */
    synchronized long held() {
        return held;
    }

    /** Answers waiting for room now. */
    synchronized int waiting() {
        return growing.size() + opening.size();
    }

    long capacity() {
        return capacity;
    }

    /** One answer's bytes in the budget. */
    final class Hold {
        private long bytes;
        /** The room waited for; 0 when not waiting. */
        private long asked;
        private Runnable onRoom;
        private boolean closed;

        /** Bytes this answer holds. */
        long bytes() {
            synchronized (TranslationBudget.this) {
                return bytes;
            }
        }

        /**
         * Room for {@code total} bytes in all (what is held included): true when the answer has it
         * now; otherwise false, and {@code onRoom} runs (on whichever thread gave the room back)
         * once it has. An answer waits for one reservation at a time.
         *
         * @throws IllegalArgumentException when {@code total} exceeds the whole budget
         */
        boolean reserve(long total, Runnable onRoom) {
            if (total > capacity) {
                throw new IllegalArgumentException("total: " + total + " (expected: <= " + capacity + ")");
            }
            List<Hold> served;
            synchronized (TranslationBudget.this) {
                if (closed) {
                    throw new IllegalStateException("closed");
                }
                if (asked > 0) {
                    throw new IllegalStateException("already waiting");
                }
                long more = total - bytes;
                if (more <= 0) {
                    return true;
                }
                boolean grows = bytes > 0;
                if (growing.isEmpty() && (grows || opening.isEmpty()) && held + more <= capacity) {
                    held += more;
                    bytes = total;
                    if (!grows) {
                        running++;
                    }
                    return true;
                }
                asked = more;
                this.onRoom = onRoom;
                if (grows) {
                    running--;
                    growing.add(this);
                } else {
                    opening.add(this);
                }
                served = serve();
            }
            boolean mine = served.remove(this);
            tell(served);
            return mine;
        }

        /** Gives back everything held, and stops waiting. Idempotent. */
        void close() {
            List<Hold> served;
            synchronized (TranslationBudget.this) {
                if (closed) {
                    return;
                }
                closed = true;
                if (asked > 0) {
                    asked = 0;
                    if (!growing.remove(this)) {
                        opening.remove(this);
                    }
                } else if (bytes > 0) {
                    running--;
                }
                held -= bytes;
                bytes = 0;
                served = serve();
            }
            tell(served);
        }
    }

    /** Gives room to the waiters it now fits, in turn; called holding the lock. */
    private List<Hold> serve() {
        List<Hold> served = new ArrayList<>(0);
        while (true) {
            Hold g = growing.peek();
            if (g != null) {
                if (held + g.asked > capacity && running > 0) {
                    break; // new answers wait behind a grower
                }
                grant(growing.poll());
                served.add(g);
                continue;
            }
            Hold o = opening.peek();
            if (o == null || held + o.asked > capacity) {
                break;
            }
            grant(opening.poll());
            served.add(o);
        }
        return served;
    }

    private void grant(Hold h) {
        held += h.asked;
        h.bytes += h.asked;
        h.asked = 0;
        running++;
    }

    private static void tell(List<Hold> served) {
        for (Hold h : served) {
            Runnable r = h.onRoom;
            h.onRoom = null;
            r.run();
        }
    }
}
