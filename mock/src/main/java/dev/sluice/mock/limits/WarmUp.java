package dev.sluice.mock.limits;

import java.time.Duration;
import java.util.Objects;

/**
 * A new deployment's allowed rate grows with time, as OpenAI and Azure raise a fresh deployment's
 * limits in steps: from its first request on, the rate limits in force are
 * {@code min(1, initial x 2^floor(t / doubling))} of the configured ones, where {@code t} is the
 * time since the first request; before it, {@code initial}. Concurrency and daily limits are not
 * scaled.
 *
 * @param initial the share allowed at first; in (0, 1]
 * @param doubling how long each step lasts before the share doubles; positive
 */
public record WarmUp(double initial, Duration doubling) {

    public WarmUp {
        if (!Double.isFinite(initial) || initial <= 0 || initial > 1) {
            throw new IllegalArgumentException("initial: " + initial + " (expected: in (0, 1])");
        }
        Objects.requireNonNull(doubling, "doubling");
        if (!doubling.isPositive()) {
            throw new IllegalArgumentException("doubling: " + doubling + " (expected: > 0)");
        }
    }

    /** The share in force {@code sinceFirstUseNanos} after the first request (negative: before it). */
    public double factor(long sinceFirstUseNanos) {
        if (sinceFirstUseNanos < 0) {
            return initial;
        }
        long steps = sinceFirstUseNanos / doubling.toNanos();
        return steps >= 62 ? 1.0 : Math.min(1.0, initial * Math.pow(2, steps));
    }

    /** How long after the first request the full limits are reached. */
    public Duration fullAfter() {
        long steps = (long) Math.ceil(Math.log(1 / initial) / Math.log(2) - 1e-9);
        return doubling.multipliedBy(Math.max(0, steps));
    }
}
