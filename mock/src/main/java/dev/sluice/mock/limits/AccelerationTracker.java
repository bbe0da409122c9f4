package dev.sluice.mock.limits;

import java.util.Arrays;

/** Arrival times of accepted requests over the recent and baseline windows of an {@link AccelerationRule}. */
final class AccelerationTracker {

    private final AccelerationRule rule;
    private final long recentNanos;
    private final long baselineNanos;
    /** Ring buffer of arrival times, oldest at {@code head}. */
    private long[] times = new long[64];
    private int head;
    private int size;

    AccelerationTracker(AccelerationRule rule) {
        this.rule = rule;
        this.recentNanos = rule.recentWindow().toNanos();
        this.baselineNanos = rule.baselineWindow().toNanos();
    }

    private long at(int i) {
        return times[(head + i) % times.length];
    }

    private void evict(long nowNanos) {
        while (size > 0 && at(0) <= nowNanos - recentNanos - baselineNanos) {
            head = (head + 1) % times.length;
            size--;
        }
    }

    /**
     * Index of the first arrival inside the recent window {@code (now - recent, now]}; a binary search,
     * since the model never records a time earlier than the last.
     */
    private int firstRecent(long nowNanos) {
        long boundary = nowNanos - recentNanos;
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (at(mid) <= boundary) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Whether one more request now would make the recent rate exceed the allowed rate. */
    boolean wouldExceed(long nowNanos) {
        evict(nowNanos);
        int first = firstRecent(nowNanos);
        double baselineRate = first * 1e9 / baselineNanos;
        double recentRate = (size - first + 1) * 1e9 / recentNanos;
        return recentRate > rule.allowedRate(baselineRate) + 1e-9;
    }

    /** How many requests the recent window may hold at the current baseline. */
    long recentAllowance(long nowNanos) {
        evict(nowNanos);
        int first = firstRecent(nowNanos);
        double allowed = rule.allowedRate(first * 1e9 / baselineNanos) * recentNanos / 1e9;
        return (long) Math.floor(allowed + 1e-9);
    }

    long recentCount(long nowNanos) {
        evict(nowNanos);
        return size - firstRecent(nowNanos);
    }

    /** Time until the oldest recent arrival leaves the recent window: a hint, at least 1 ms. */
    long nanosUntilRecentSlotFrees(long nowNanos) {
        evict(nowNanos);
        int first = firstRecent(nowNanos);
        long wait = first < size ? at(first) + recentNanos - nowNanos : 0;
        return Math.max(wait, 1_000_000L);
    }

    void record(long nowNanos) {
        if (size == times.length) {
            long[] grown = new long[times.length * 2];
            for (int i = 0; i < size; i++) {
                grown[i] = at(i);
            }
            times = grown;
            head = 0;
        }
        times[(head + size) % times.length] = nowNanos;
        size++;
    }

    void clear() {
        Arrays.fill(times, 0);
        head = 0;
        size = 0;
    }
}
