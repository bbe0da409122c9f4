package dev.sluice.mock.limits;

import java.time.Duration;
import java.util.Objects;

/**
 * The provider changes its rate limits without telling anyone: from {@code at} until {@code until}
 * (times since the model started) they are {@code factor} of the configured ones.
 *
 * @param at when the change starts
 * @param until when the configured limits return; after {@code at}
 * @param factor the share in force meanwhile; in (0, 10]
 */
public record LimitChange(Duration at, Duration until, double factor) {

    public LimitChange {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(until, "until");
        if (at.isNegative() || until.compareTo(at) <= 0) {
            throw new IllegalArgumentException("until: " + until + " (expected: after at " + at + ", at >= 0)");
        }
        if (!Double.isFinite(factor) || factor <= 0 || factor > 10) {
            throw new IllegalArgumentException("factor: " + factor + " (expected: in (0, 10])");
        }
    }

    /** Whether the change is in force {@code sinceStartNanos} after the model started. */
    public boolean activeAt(long sinceStartNanos) {
        return sinceStartNanos >= at.toNanos() && sinceStartNanos < until.toNanos();
    }
}
