package dev.sluice.sim.engine;

import java.util.PriorityQueue;

/**
 * A deterministic discrete-event loop over a {@link VirtualClock}. Events run in time order; events
 * at the same instant run in the order they were scheduled (a sequence number breaks ties), so the
 * same inputs give the same run, event for event.
 */
public final class EventLoop {

    private record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final VirtualClock clock = new VirtualClock();
    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long seq;
    private long executed;
    private Runnable afterEach = () -> {};

    public VirtualClock clock() {
        return clock;
    }

    /** Current virtual time in nanoseconds. */
    public long now() {
        return clock.nanos();
    }

    /** Runs {@code action} at {@code atNanos}; a time in the past means now (after what is already due now). */
    public void at(long atNanos, Runnable action) {
        queue.add(new Event(Math.max(atNanos, clock.nanos()), seq++, action));
    }

    /** Runs {@code action} {@code delayNanos} from now. */
    public void after(long delayNanos, Runnable action) {
        at(saturatedAdd(clock.nanos(), Math.max(0, delayNanos)), action);
    }

    /** A check run after every event, for invariants. */
    public void afterEach(Runnable check) {
        this.afterEach = check;
    }

    /** Runs every event due up to and including {@code untilNanos}; time ends at the last event run. */
    public void runUntil(long untilNanos) {
        while (!queue.isEmpty() && queue.peek().at <= untilNanos) {
            Event e = queue.poll();
            clock.advanceTo(e.at);
            e.action.run();
            executed++;
            afterEach.run();
        }
    }

    /**
     * Runs events in order while {@code keepGoing} holds and the next event is due by
     * {@code untilNanos}; returns whether {@code keepGoing} still held when it stopped.
     */
    public boolean runWhile(java.util.function.BooleanSupplier keepGoing, long untilNanos) {
        while (keepGoing.getAsBoolean()) {
            if (queue.isEmpty() || queue.peek().at > untilNanos) {
                return true;
            }
            Event e = queue.poll();
            clock.advanceTo(e.at);
            e.action.run();
            executed++;
            afterEach.run();
        }
        return false;
    }

    /** Moves time to {@code nanos} without running anything (nothing may be due before it). */
    public void advanceTo(long nanos) {
        if (!queue.isEmpty() && queue.peek().at < nanos) {
            throw new IllegalStateException("events are due before " + nanos);
        }
        clock.advanceTo(Math.max(nanos, clock.nanos()));
    }

    public boolean idle() {
        return queue.isEmpty();
    }

    /** Events run so far. */
    public long executed() {
        return executed;
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
