package dev.sluice.sim.metrics;

import org.HdrHistogram.Histogram;

/** Durations in microseconds, up to four hours, three significant digits; reported in milliseconds. */
final class Quantiles {

    private static final long HIGHEST_MICROS = 4L * 3600 * 1_000_000;

    private final Histogram h = new Histogram(HIGHEST_MICROS, 3);

    void recordNanos(long nanos) {
        h.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1_000)));
    }

    long count() {
        return h.getTotalCount();
    }

    /** The {@code q}-quantile (0..100) in milliseconds, 0 when empty. */
    double millis(double percentile) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / 1000.0;
    }
}
