package dev.sluice.mock.limits;

/**
 * One dimension's state as rate-limit headers report it.
 *
 * @param limit the size of the limit (per window, per minute, in flight or per day)
 * @param remaining what is left now, never negative
 * @param resetNanos time until the dimension is back to its full, unused state
 */
public record Gauge(long limit, long remaining, long resetNanos) {

    public Gauge {
        if (remaining < 0) {
            throw new IllegalArgumentException("remaining: " + remaining + " (expected: >= 0)");
        }
        if (resetNanos < 0) {
            throw new IllegalArgumentException("resetNanos: " + resetNanos + " (expected: >= 0)");
        }
    }

    /** {@link #resetNanos()} rounded up to whole milliseconds. */
    public long resetMillis() {
        return Math.ceilDiv(resetNanos, 1_000_000L);
    }

    /** Fraction left, 0 to 1; used to pick the tightest of several limits. */
    public double remainingFraction() {
        return limit <= 0 ? 1.0 : (double) remaining / limit;
    }
}
