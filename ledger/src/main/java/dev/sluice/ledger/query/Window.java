package dev.sluice.ledger.query;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A period of time, from inclusive to exclusive. Queries read rollups, so the period they answer
 * for is this one widened to whole hours (or, older than the hourly rollups, whole days); each
 * answer says which period it covers.
 */
public record Window(Instant from, Instant to) {

    public Window {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("window: " + from + " .. " + to + " (expected: from before to)");
        }
    }

    /** The {@code length} up to {@code now}: {@code --since 24h}. */
    public static Window last(Duration length, Instant now) {
        if (!length.isPositive()) {
            throw new IllegalArgumentException("length: " + length + " (expected: > 0)");
        }
        return new Window(now.minus(length), now);
    }
}
