package dev.sluice.adapt;

import java.util.Arrays;

/** The last {@code n} instants something happened, oldest overwritten first. Not thread-safe. */
final class RecentTimes {

    private final long[] times;
    private int next;

    RecentTimes(int n) {
        this.times = new long[n];
        Arrays.fill(times, Long.MIN_VALUE);
    }

    void add(long nanos) {
        times[next] = nanos;
        next = (next + 1) % times.length;
    }

    /** Whether all of the last {@code n} happened, and after {@code since}. */
    boolean allAfter(long since) {
        for (long t : times) {
            if (t == Long.MIN_VALUE || t <= since) {
                return false;
            }
        }
        return true;
    }
}
