package dev.sluice.mock.limits;

import java.util.ArrayDeque;

/**
 * Requests counted in fixed sub-windows aligned on multiples of the window length, plus the
 * trailing minute of those windows for the per-minute view headers report.
 */
final class RequestWindows {

    private record Slot(long index, long count) {}

    private final long windowNanos;
    private long rpm;
    private long allowance;
    /** Past windows still inside the trailing minute; the current window is kept apart. */
    private final ArrayDeque<Slot> past = new ArrayDeque<>();
    private long currentIndex = Long.MIN_VALUE;
    private long currentCount;

    RequestWindows(long rpm, long windowNanos) {
        this.rpm = rpm;
        this.windowNanos = windowNanos;
        this.allowance = allowance(rpm, windowNanos);
    }

    /** {@code max(1, floor(rpm x window / 60 s))}. */
    static long allowance(long rpm, long windowNanos) {
        long perWindow = rpm <= Long.MAX_VALUE / windowNanos
                ? rpm * windowNanos / TokenBucket.MINUTE_NANOS
                : (long) ((double) rpm * windowNanos / TokenBucket.MINUTE_NANOS);
        return Math.max(1, perWindow);
    }

    long allowance() {
        return allowance;
    }

    long windowNanos() {
        return windowNanos;
    }

    /** Changes the per-minute rate; counts so far stay. */
    void setRpm(long newRpm) {
        this.rpm = newRpm;
        this.allowance = allowance(newRpm, windowNanos);
    }

    private void advance(long nowNanos) {
        long index = Math.floorDiv(nowNanos, windowNanos);
        if (index != currentIndex) {
            if (currentCount > 0) {
                past.addLast(new Slot(currentIndex, currentCount));
            }
            currentIndex = index;
            currentCount = 0;
        }
        while (!past.isEmpty() && startOf(past.peekFirst().index()) <= nowNanos - TokenBucket.MINUTE_NANOS) {
            past.removeFirst();
        }
    }

    private long startOf(long index) {
        return index * windowNanos;
    }

    boolean full(long nowNanos) {
        advance(nowNanos);
        return currentCount >= allowance;
    }

    void record(long nowNanos) {
        advance(nowNanos);
        currentCount++;
    }

    long nanosUntilWindowEnds(long nowNanos) {
        advance(nowNanos);
        return startOf(currentIndex + 1) - nowNanos;
    }

    Gauge windowGauge(long nowNanos) {
        advance(nowNanos);
        long reset = currentCount == 0 ? 0 : nanosUntilWindowEnds(nowNanos);
        return new Gauge(allowance, Math.max(0, allowance - currentCount), reset);
    }

    /** Requests in windows that started within the last minute, against {@code rpm}. */
    Gauge minuteGauge(long nowNanos) {
        advance(nowNanos);
        long count = currentCount;
        long newestStart = currentCount > 0 ? startOf(currentIndex) : Long.MIN_VALUE;
        for (Slot slot : past) {
            count += slot.count();
            newestStart = Math.max(newestStart, startOf(slot.index()));
        }
        long reset = count == 0 ? 0 : Math.max(0, newestStart + TokenBucket.MINUTE_NANOS - nowNanos);
        return new Gauge(rpm, Math.max(0, rpm - count), reset);
    }
}
