package dev.sluice.mock.limits;

/** Requests per day, in 24 h windows counted from a day origin (e.g. Pacific midnight). */
final class DailyCounter {

    static final long DAY_NANOS = 86_400_000_000_000L;

    private long limit;
    private final long originNanos;
    private long dayIndex = Long.MIN_VALUE;
    private long count;

    DailyCounter(long limit, long originNanos) {
        this.limit = limit;
        this.originNanos = originNanos;
    }

    /** Changes the daily limit; today's count stays. */
    void setLimit(long newLimit) {
        this.limit = newLimit;
    }

    private void advance(long nowNanos) {
        long index = Math.floorDiv(nowNanos - originNanos, DAY_NANOS);
        if (index != dayIndex) {
            dayIndex = index;
            count = 0;
        }
    }

    boolean full(long nowNanos) {
        advance(nowNanos);
        return count >= limit;
    }

    void record(long nowNanos) {
        advance(nowNanos);
        count++;
    }

    long nanosUntilDayEnds(long nowNanos) {
        advance(nowNanos);
        return originNanos + (dayIndex + 1) * DAY_NANOS - nowNanos;
    }

    Gauge gauge(long nowNanos) {
        advance(nowNanos);
        return new Gauge(limit, Math.max(0, limit - count), count == 0 ? 0 : nanosUntilDayEnds(nowNanos));
    }
}
