package dev.sluice.adapt;

import java.util.Arrays;
import java.util.OptionalLong;
import org.HdrHistogram.Histogram;

/**
 * What a deployment answered over the sliding window: successes, refusals (429 and overload), the
 * mean rate factor they were sent at, and the latency of successful answers. Not thread-safe.
 */
final class SignalWindow {

    private static final int SUCCESSES = 0;
    private static final int LIMITED = 1;
    private static final int FACTOR_SUM = 2;
    private static final long HIGHEST_MICROS = 3_600_000_000L;

    private final RollingSums counts;
    private final long sliceNanos;
    private final int slices;
    private final long[] sliceOf;
    private final Histogram[] latency;
    private final Histogram merged = new Histogram(1, HIGHEST_MICROS, 2);
    private final int minSamples;

    /**
     * @param successes successful answers
     * @param limited 429s and overloads
     * @param meanFactor mean rate factor (relative to the limit in force) the answers were sent at
     * @param p95Nanos p95 latency of successful answers, when there were at least min-samples of them
     */
    record Stats(long successes, long limited, double meanFactor, OptionalLong p95Nanos) {

        long answers() {
            return successes + limited;
        }
    }

    SignalWindow(WindowConfig config) {
        this.counts = new RollingSums(config.length(), config.slots(), 3);
        this.slices = config.slots();
        this.sliceNanos = Math.max(1, config.length().toNanos() / slices);
        this.sliceOf = new long[slices];
        Arrays.fill(sliceOf, Long.MIN_VALUE);
        this.latency = new Histogram[slices];
        for (int i = 0; i < slices; i++) {
            latency[i] = new Histogram(1, HIGHEST_MICROS, 2);
        }
        this.minSamples = config.minSamples();
    }

    void success(long now, double factor, long latencyNanos) {
        counts.add(now, SUCCESSES, 1);
        counts.add(now, FACTOR_SUM, factor);
        latency(now, latencyNanos);
    }

    void limited(long now, double factor) {
        counts.add(now, LIMITED, 1);
        counts.add(now, FACTOR_SUM, factor);
    }

    /** A latency sample without an outcome (a timeout). */
    void latency(long now, long latencyNanos) {
        long abs = Math.floorDiv(now, sliceNanos);
        int i = (int) Math.floorMod(abs, (long) slices);
        if (sliceOf[i] != abs) {
            sliceOf[i] = abs;
            latency[i].reset();
        }
        latency[i].recordValue(Math.min(HIGHEST_MICROS, Math.max(1, latencyNanos / 1_000)));
    }

    Stats stats(long now) {
        long successes = Math.round(counts.sum(now, SUCCESSES));
        long limited = Math.round(counts.sum(now, LIMITED));
        long answers = successes + limited;
        double meanFactor = answers == 0 ? 1.0 : counts.sum(now, FACTOR_SUM) / answers;
        long abs = Math.floorDiv(now, sliceNanos);
        merged.reset();
        for (int i = 0; i < slices; i++) {
            if (sliceOf[i] <= abs && sliceOf[i] > abs - slices) {
                merged.add(latency[i]);
            }
        }
        OptionalLong p95 = merged.getTotalCount() >= minSamples
                ? OptionalLong.of(merged.getValueAtPercentile(95.0) * 1_000) : OptionalLong.empty();
        return new Stats(successes, limited, meanFactor, p95);
    }
}
