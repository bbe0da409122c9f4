package dev.sluice.mock.limits;

import java.time.Duration;
import java.util.Objects;

/**
 * How one per-minute limit is enforced over a short window: a window of length {@code w} allows
 * {@code limit x w / 60 s x burst}, and, for fixed and sliding windows, the minute as a whole still
 * allows at most {@code limit}. A token bucket holds the window's allowance and refills at
 * {@code limit} per minute. When one request would not fit, the window is made long enough to hold
 * one ({@code w >= 60 s / (limit x burst)}).
 *
 * <p>A request larger than the window's allowance is admitted when the window is empty (a bucket
 * full), and then fills it: it waits for an empty window, it is not refused for good. Only a request
 * larger than the per-minute limit itself is too large.
 *
 * @param kind fixed window, sliding window or token bucket
 * @param window the short window; 1 ms to 60 s
 * @param burst the multiple of the per-minute rate the window allows; 1 to 10
 */
public record Enforcement(WindowKind kind, Duration window, double burst) {

    public static final Duration MIN_WINDOW = Duration.ofMillis(1);
    public static final Duration MAX_WINDOW = Duration.ofMinutes(1);

    public Enforcement {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(window, "window");
        if (window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
            throw new IllegalArgumentException("window: " + window + " (expected: between 1ms and 60s)");
        }
        if (!Double.isFinite(burst) || burst < 1 || burst > 10) {
            throw new IllegalArgumentException("burst: " + burst + " (expected: between 1 and 10)");
        }
    }

    /** The window actually used for {@code limit}: long enough that one unit fits. */
    long windowNanos(long limit) {
        double minimum = TokenBucket.MINUTE_NANOS / (limit * burst);
        return (long) Math.min(TokenBucket.MINUTE_NANOS, Math.max(window.toNanos(), Math.ceil(minimum)));
    }

    /** What the window allows for {@code limit}: {@code limit x w / 60 s x burst}, at least 1. */
    double allowance(long limit) {
        return Math.max(1.0, (double) limit * windowNanos(limit) / TokenBucket.MINUTE_NANOS * burst);
    }

    /** The limiter enforcing {@code limit} this way, starting empty (a bucket full) at its first use. */
    Limiter limiter(long limit) {
        return kind == WindowKind.TOKEN_BUCKET ? new BucketLimiter(this, limit) : new WindowLimiter(this, limit);
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + window.toMillis() + "ms x"
                + String.format(java.util.Locale.ROOT, "%.2f", burst);
    }
}
