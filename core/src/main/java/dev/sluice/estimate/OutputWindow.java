package dev.sluice.estimate;

import org.HdrHistogram.IntCountsHistogram;

/**
 * Output-token history of one route over the newest one to two windows. A window closes when it
 * holds {@code outputWindowSamples} samples or grows older than {@code outputWindowAge}; only the
 * window before the open one is kept, so a route whose answers change is relearned within two
 * windows.
 *
 * <p>Writers take this object's monitor; readers see an immutable {@link Summary} through a
 * volatile field and lock only when an aged window must be retired.
 *
 * <p>The summary is made again when the samples added since it was made reach a thirty-second of
 * those it counts (so after every sample while there are fewer than 64), and whenever a window
 * closes. Finding a percentile walks the histogram's buckets up to it, hundreds for answers of a
 * few hundred tokens; done on every settlement, that was most of what learning cost, for a
 * summary that one more sample in a thousand hardly moves.
 */
final class OutputWindow {

    /** Summary of the histogram as of the last change. */
    record Summary(long samples, long p50, long p95, long windowStartNanos) {
    }

    /** About two million: above every model's output limit; larger reports are recorded as this. */
    private static final long HIGHEST_TRACKED = 1L << 21;
    /** Two significant digits: percentiles within 1%, rounded up; about 8 KB per histogram. */
    private static final int SIGNIFICANT_DIGITS = 2;

    private final long windowSamples;
    private final long windowAgeNanos;

    // Guarded by this. combined is always previous + current, so percentiles need no merge.
    private IntCountsHistogram current = newHistogram();
    private IntCountsHistogram previous = newHistogram();
    private final IntCountsHistogram combined = newHistogram();
    private long windowStartNanos;
    /** Samples in {@code combined} when the summary was last made. */
    private long publishedSamples;

    private volatile Summary summary;

    OutputWindow(EstimatorConfig config, long nowNanos) {
        this.windowSamples = config.outputWindowSamples();
        this.windowAgeNanos = config.outputWindowAge().toNanos();
        this.windowStartNanos = nowNanos;
        this.summary = new Summary(0, 0, 0, nowNanos);
    }

    synchronized void record(long outputTokens, long nowNanos) {
        boolean closed = retireAged(nowNanos);
        long value = Math.min(outputTokens, HIGHEST_TRACKED);
        current.recordValue(value);
        combined.recordValue(value);
        if (current.getTotalCount() >= windowSamples) {
            rotate(nowNanos);
            closed = true;
        }
        if (closed || combined.getTotalCount() - publishedSamples >= Math.max(1, publishedSamples >> 5)) {
            publish();
        }
    }

    Summary summary(long nowNanos) {
        Summary s = summary;
        if (nowNanos - s.windowStartNanos() < windowAgeNanos) {
            return s;
        }
        synchronized (this) {
            if (retireAged(nowNanos)) {
                publish();
            }
            return summary;
        }
    }

    /** The summary of every sample recorded so far, made now: for reports, not for the hot path. */
    synchronized Summary exactSummary(long nowNanos) {
        retireAged(nowNanos);
        publish();
        return summary;
    }

    private boolean retireAged(long nowNanos) {
        long age = nowNanos - windowStartNanos;
        if (age < windowAgeNanos) {
            return false;
        }
        if (age >= 2 * windowAgeNanos) {
            // Both windows hold only samples older than a full window age: start over.
            current.reset();
            previous.reset();
            combined.reset();
            windowStartNanos = nowNanos;
        } else {
            rotate(nowNanos);
        }
        return true;
    }

    private void rotate(long nowNanos) {
        combined.subtract(previous);
        previous.reset();
        IntCountsHistogram emptied = previous;
        previous = current;
        current = emptied;
        windowStartNanos = nowNanos;
    }

    private void publish() {
        long samples = combined.getTotalCount();
        publishedSamples = samples;
        summary = samples == 0
                ? new Summary(0, 0, 0, windowStartNanos)
                : new Summary(samples, combined.getValueAtPercentile(50.0), combined.getValueAtPercentile(95.0),
                        windowStartNanos);
    }

    private static IntCountsHistogram newHistogram() {
        return new IntCountsHistogram(HIGHEST_TRACKED, SIGNIFICANT_DIGITS);
    }
}
