package dev.sluice.mock;

/**
 * The mock's source of time. The HTTP server reads it for the limit model (monotonic nanos) and for
 * dates in headers (wall millis); tests pass a manual one to get exact header values.
 */
public interface MockClock {

    /** Monotonic time in nanoseconds; only differences mean anything. */
    long nanos();

    /** Wall-clock milliseconds since the Unix epoch. */
    long epochMillis();

    /** The machine's clocks. */
    static MockClock system() {
        return SystemMockClock.INSTANCE;
    }
}
