package dev.sluice.mock.http;

import dev.sluice.mock.MockClock;
import java.time.Duration;
import java.time.Instant;

/** A clock that moves only when told; wall time starts at 2026-01-01T00:00:00Z. */
final class ManualClock implements MockClock {

    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private volatile long nanos;

    @Override
    public long nanos() {
        return nanos;
    }

    @Override
    public long epochMillis() {
        return START.toEpochMilli() + nanos / 1_000_000L;
    }

    void advance(Duration d) {
        nanos += d.toNanos();
    }
}
