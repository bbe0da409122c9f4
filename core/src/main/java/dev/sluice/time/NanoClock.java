package dev.sluice.time;

/**
 * The only source of time in the governor. Everything in core takes one in its constructor, so a
 * test or the simulator can drive hours of traffic in virtual time and get the same answer twice.
 *
 * <p>{@link #nanos()} is monotonic and is what every bucket, queue and lease is measured in;
 * {@link #epochMillis()} is wall time, used only where the calendar matters (daily caps that reset
 * at midnight, HTTP-date headers).
 */
public interface NanoClock {

    /** Monotonic time in nanoseconds; only differences between two readings mean anything. */
    long nanos();

    /** Wall-clock time in milliseconds since the Unix epoch. */
    long epochMillis();

    /** The real clock. */
    static NanoClock system() {
        return SystemNanoClock.INSTANCE;
    }
}
