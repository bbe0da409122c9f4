package dev.sluice.adapt;

import java.time.Duration;
import java.util.Arrays;

/**
 * Sums of a few quantities over a sliding window kept in slices: adding lands in the slice of
 * {@code now}, reading sums the slices still inside the window. Time comes in as arguments. Not
 * thread-safe.
 */
final class RollingSums {

    private final long sliceNanos;
    private final int slices;
    private final long[] sliceOf;
    private final double[][] sums;

    RollingSums(Duration length, int slices, int fields) {
        this.slices = slices;
        this.sliceNanos = Math.max(1, length.toNanos() / slices);
        this.sliceOf = new long[slices];
        Arrays.fill(sliceOf, Long.MIN_VALUE);
        this.sums = new double[slices][fields];
    }

    void add(long now, int field, double value) {
        long abs = Math.floorDiv(now, sliceNanos);
        int i = (int) Math.floorMod(abs, (long) slices);
        if (sliceOf[i] != abs) {
            sliceOf[i] = abs;
            Arrays.fill(sums[i], 0);
        }
        sums[i][field] += value;
    }

    double sum(long now, int field) {
        long abs = Math.floorDiv(now, sliceNanos);
        double total = 0;
        for (int i = 0; i < slices; i++) {
            if (sliceOf[i] <= abs && sliceOf[i] > abs - slices) {
                total += sums[i][field];
            }
        }
        return total;
    }
}
