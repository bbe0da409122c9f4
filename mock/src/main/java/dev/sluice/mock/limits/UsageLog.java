package dev.sluice.mock.limits;

import java.util.ArrayDeque;

/** What was charged in the trailing {@code windowNanos}, entry by entry: a sliding window's log. */
final class UsageLog {

    private record Entry(long atNanos, double amount) {}

    private final long windowNanos;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private double sum;

    UsageLog(long windowNanos) {
        this.windowNanos = windowNanos;
    }

    long windowNanos() {
        return windowNanos;
    }

    /** Forgets entries charged at or before {@code now - window}. */
    private void evict(long nowNanos) {
        while (!entries.isEmpty() && entries.peekFirst().atNanos() <= nowNanos - windowNanos) {
            sum -= entries.removeFirst().amount();
        }
        if (entries.isEmpty()) {
            sum = 0;
        }
    }

    /** Takes over every entry of {@code other} (same or another window length). */
    void absorb(UsageLog other) {
        for (Entry e : other.entries) {
            entries.addLast(e);
            sum += e.amount();
        }
    }

    void add(double amount, long nowNanos) {
        evict(nowNanos);
        entries.addLast(new Entry(nowNanos, amount));
        sum += amount;
    }

    /** The amount charged within the window, never negative. */
    double used(long nowNanos) {
        evict(nowNanos);
        return Math.max(0, sum);
    }

    /**
     * Time until at most {@code target} remains charged within the window, if nothing is added.
     */
    long nanosUntilAtMost(double target, long nowNanos) {
        evict(nowNanos);
        double left = sum;
        if (left <= target + 1e-9) {
            return 0;
        }
        for (Entry e : entries) {
            left -= e.amount();
            if (left <= target + 1e-9) {
                return e.atNanos() + windowNanos - nowNanos;
            }
        }
        return entries.isEmpty() ? 0 : entries.peekLast().atNanos() + windowNanos - nowNanos;
    }

    /** Time until nothing remains charged. */
    long nanosUntilEmpty(long nowNanos) {
        evict(nowNanos);
        return entries.isEmpty() ? 0 : entries.peekLast().atNanos() + windowNanos - nowNanos;
    }
}
