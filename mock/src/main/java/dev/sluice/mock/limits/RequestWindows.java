package dev.sluice.mock.limits;

import java.util.ArrayDeque;

/**
 * Requests as the reference model counts them: in fixed sub-windows aligned on multiples of the
 * window length, plus the trailing minute of those windows for the per-minute view headers report.
 * Every arrival is counted, admitted or not.
 */
final class RequestWindows implements Limiter {

    private record Slot(long index, long count) {}

    private final long rpm;
    private final long configuredWindowNanos;
    private final long windowNanos;
    private final long allowance;
    /** Past windows still inside the trailing minute; the current window is kept apart. */
    private final ArrayDeque<Slot> past = new ArrayDeque<>();
    private long currentIndex = Long.MIN_VALUE;
    private long currentCount;

    /**
     * @param rpm requests per minute, positive
     * @param configuredWindowNanos the window asked for; the one used admits a whole number of
     *     requests at exactly {@code rpm}, see {@link #allowance(long, long)}
     */
    RequestWindows(long rpm, long configuredWindowNanos) {
        this.rpm = rpm;
        this.configuredWindowNanos = configuredWindowNanos;
        this.allowance = allowance(rpm, configuredWindowNanos);
        this.windowNanos = windowFor(rpm, allowance);
    }

    /**
     * {@code max(1, round(rpm x window / 60 s))}: the window is then stretched or shrunk a little to
     * hold exactly that many requests at {@code rpm}, so the per-minute rate stays exact (50 RPM on
     * 1 s windows becomes 1 request per 1.2 s).
     */
    static long allowance(long rpm, long windowNanos) {
        double perWindow = (double) rpm * windowNanos / TokenBucket.MINUTE_NANOS;
        return Math.max(1, Math.round(perWindow));
    }

    private static long windowFor(long rpm, long allowance) {
        return allowance <= Long.MAX_VALUE / TokenBucket.MINUTE_NANOS
                ? allowance * TokenBucket.MINUTE_NANOS / rpm
                : (long) ((double) allowance * TokenBucket.MINUTE_NANOS / rpm);
    }

    long allowance() {
        return allowance;
    }

    long windowNanos() {
        return windowNanos;
    }

    /**
     * The windows for new limits: when the window length stays the same, the counts so far are
     * carried over.
     */
    RequestWindows withLimits(long newRpm, long configuredWindowNanos) {
        RequestWindows next = new RequestWindows(newRpm, configuredWindowNanos);
        if (next.windowNanos == windowNanos) {
            next.past.addAll(past);
            next.currentIndex = currentIndex;
            next.currentCount = currentCount;
        }
        return next;
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

    @Override
    public long limit() {
        return rpm;
    }

    @Override
    public Limiter withLimit(long newLimit, long nowNanos) {
        return withLimits(newLimit, configuredWindowNanos);
    }

    @Override
    public boolean fits(long amount, long nowNanos) {
        advance(nowNanos);
        return currentCount < allowance;
    }

    @Override
    public void charge(long amount, long nowNanos) {
        if (amount > 0) {
            advance(nowNanos);
            currentCount += amount;
        }
    }

    /** Every arrival counts in its sub-window, admitted or not. */
    @Override
    public void refused(long amount, long nowNanos) {
        charge(amount, nowNanos);
    }

    @Override
    public long nanosUntilFits(long amount, long nowNanos) {
        return nanosUntilWindowEnds(nowNanos);
    }

    /** A fixed window is unused again once it ends. */
    @Override
    public long nanosUntilFull(long nowNanos) {
        return nanosUntilWindowEnds(nowNanos);
    }

    @Override
    public long initialHeadroom() {
        return 0;
    }

    /** Windows store nothing beyond their rate. */
    @Override
    public long headroom(long nowNanos) {
        return 0;
    }

    long nanosUntilWindowEnds(long nowNanos) {
        advance(nowNanos);
        return startOf(currentIndex + 1) - nowNanos;
    }

    @Override
    public Gauge gauge(long nowNanos) {
        advance(nowNanos);
        long reset = currentCount == 0 ? 0 : nanosUntilWindowEnds(nowNanos);
        return new Gauge(allowance, Math.max(0, allowance - currentCount), reset);
    }

    /** Requests in windows that started within the last minute, against {@code rpm}. */
    @Override
    public Gauge minuteGauge(long nowNanos) {
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
