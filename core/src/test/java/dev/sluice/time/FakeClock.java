package dev.sluice.time;

import java.time.Duration;
import java.time.Instant;

/** A clock that moves only when a test tells it to. Wall time starts at a fixed instant. */
public final class FakeClock implements NanoClock {

    /** 2026-01-01T00:00:00Z: an arbitrary, fixed start so wall-clock tests are reproducible. */
    public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

    private final long startEpochMillis;
    private long nanos;

    public FakeClock() {
        this(DEFAULT_START);
    }

    public FakeClock(Instant start) {
        this.startEpochMillis = start.toEpochMilli();
    }

    @Override
    public long nanos() {
        return nanos;
    }

    @Override
    public long epochMillis() {
        return startEpochMillis + nanos / 1_000_000L;
    }

    public FakeClock advance(Duration d) {
        return advanceNanos(d.toNanos());
    }

    public FakeClock advanceMillis(long millis) {
        return advanceNanos(millis * 1_000_000L);
    }

    public FakeClock advanceNanos(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("delta: " + delta + " (expected: >= 0)");
        }
        nanos += delta;
        return this;
    }

    /** Moves to an absolute monotonic reading; never backwards. */
    public FakeClock setNanos(long to) {
        return advanceNanos(to - nanos);
    }
}
