package dev.sluice.ledger;

import dev.sluice.runtime.event.RequestEvent;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Events between the threads that end requests and the one writer: bounded, and never waits. An
 * event loop that offers is never parked, not even for a lock: the count is one atomic add and
 * the queue is lock-free.
 */
final class EventBuffer {

    private final ConcurrentLinkedQueue<RequestEvent> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;

    EventBuffer(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 1)");
        }
        this.capacity = capacity;
    }

    /**
     * Takes {@code e} unless the buffer is full. Returns the size after it was taken, or -1 when it
     * was not.
     */
    int offer(RequestEvent e) {
        int s = size.incrementAndGet();
        if (s > capacity) {
            size.decrementAndGet();
            return -1;
        }
        queue.offer(e);
        return s;
    }

    /** Moves at most {@code max} events to {@code out}, oldest first; returns how many. */
    int drainTo(List<RequestEvent> out, int max) {
        int n = 0;
        while (n < max) {
            RequestEvent e = queue.poll();
            if (e == null) {
                break;
            }
            out.add(e);
            n++;
        }
        size.addAndGet(-n);
        return n;
    }

    /** Events taken and not yet drained (an offer in progress may be counted before it can be drained). */
    int size() {
        return size.get();
    }

    int capacity() {
        return capacity;
    }
}
