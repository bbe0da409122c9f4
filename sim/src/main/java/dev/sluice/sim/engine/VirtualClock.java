package dev.sluice.sim.engine;

import dev.sluice.time.NanoClock;
import java.time.Instant;

/**
 * The simulation's time: it moves only when the event loop takes the next event. Wall time starts
 * at a fixed instant so daily caps and HTTP dates come out the same on every run.
 */
public final class VirtualClock implements NanoClock {

    /** 2026-01-01T00:00:00Z, a Thursday; far from any midnight a run could cross by accident. */
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final long startEpochMillis = START.toEpochMilli();
    private long nanos;

    @Override
    public long nanos() {
        return nanos;
    }

    @Override
    public long epochMillis() {
        return startEpochMillis + nanos / 1_000_000L;
    }

    /** Moves time forward to {@code to}; never backwards. */
    void advanceTo(long to) {
        if (to < nanos) {
            throw new IllegalStateException("time: " + to + " (expected: >= " + nanos + ")");
        }
        nanos = to;
    }
}
