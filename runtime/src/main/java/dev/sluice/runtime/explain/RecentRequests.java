package dev.sluice.runtime.explain;

import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Predicate;

/**
 * The most recent requests, in memory: a ring of the last {@code capacity} request events. On the
 * request's way it only claims a slot and stores a reference there (the oldest event is dropped by
 * being overwritten), so it costs one atomic increment and one store per request and never waits.
 * Readers (the admin API) walk the ring newest first; a slot being overwritten while read is seen
 * either as its old event or its new one.
 */
public final class RecentRequests implements RequestEventSink {

    /** How many requests are kept by default: minutes of a busy gateway, a few MiB at most. */
    public static final int DEFAULT_CAPACITY = 4096;

    private final AtomicReferenceArray<RequestEvent> ring;
    private final AtomicLong written = new AtomicLong();

    /** A ring of {@link #DEFAULT_CAPACITY} requests. */
    public RecentRequests() {
        this(DEFAULT_CAPACITY);
    }

    public RecentRequests(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 1)");
        }
        this.ring = new AtomicReferenceArray<>(capacity);
    }

    @Override
    public void onRequest(RequestEvent event) {
        long n = written.getAndIncrement();
        ring.lazySet((int) (n % ring.length()), event);
    }

    /** How many requests it can hold. */
    public int capacity() {
        return ring.length();
    }

    /** Up to {@code limit} of the requests held that {@code which} accepts, newest first. */
    public List<RequestEvent> newest(int limit, Predicate<RequestEvent> which) {
        List<RequestEvent> out = new ArrayList<>(Math.min(limit, ring.length()));
        long end = written.get();
        long start = Math.max(0, end - ring.length());
        for (long n = end - 1; n >= start && out.size() < limit; n--) {
            RequestEvent e = ring.get((int) (n % ring.length()));
            if (e != null && which.test(e)) {
                out.add(e);
            }
        }
        return out;
    }

    /** The newest request held with {@code traceId} (a caller's trace may hold several). */
    public Optional<RequestEvent> byTrace(String traceId) {
        List<RequestEvent> found = newest(1, e -> e.traceId().equals(traceId));
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }
}
