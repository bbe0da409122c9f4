package dev.sluice.adapt.sim;

import dev.sluice.time.FakeClock;
import java.util.PriorityQueue;

/**
 * Virtual time for the simulation: a priority queue of events on a {@link FakeClock}. Events at
 * the same instant run in the order they were scheduled. No threads, no sleeping.
 */
final class VirtualTime {

    private record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final FakeClock clock;
    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long seq;
    private long processed;
    private long sameInstant;
    private long lastInstant = Long.MIN_VALUE;

    /** More events than this at one instant means something reschedules itself without time passing. */
    private static final long MAX_EVENTS_PER_INSTANT = 100_000;

    VirtualTime(FakeClock clock) {
        this.clock = clock;
    }

    long now() {
        return clock.nanos();
    }

    /** Runs {@code action} at {@code when}, or now if that is already past. */
    void at(long when, Runnable action) {
        queue.add(new Event(Math.max(when, clock.nanos()), seq++, action));
    }

    /** Runs every event up to {@code end} in time order, calling {@code afterEach} after each one. */
    void runUntil(long end, Runnable afterEach) {
        while (!queue.isEmpty() && queue.peek().at() <= end) {
            Event e = queue.poll();
            sameInstant = e.at() == lastInstant ? sameInstant + 1 : 0;
            lastInstant = e.at();
            if (sameInstant > MAX_EVENTS_PER_INSTANT) {
                throw new IllegalStateException("busy loop at t=" + e.at() + " ns");
            }
            clock.setNanos(e.at());
            e.action().run();
            processed++;
            afterEach.run();
        }
        if (clock.nanos() < end) {
            clock.setNanos(end);
        }
    }

    long processed() {
        return processed;
    }
}
