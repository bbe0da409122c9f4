package dev.sluice.mock.limits;

/**
 * A per-minute limit enforced as a token bucket holding a short window's allowance (see
 * {@link Enforcement}) and refilling continuously at the per-minute rate. It starts full. A request
 * larger than the bucket passes when the bucket is full and leaves it in debt. Corrections
 * downwards are given back, up to a full bucket.
 */
final class BucketLimiter implements Limiter {

    private static final double EPSILON = 1e-6;

    private final Enforcement enforcement;
    private long limit;
    private double capacity;
    private double level;
    private long lastNanos = Long.MIN_VALUE;
    private final UsageLog minuteLog = new UsageLog(TokenBucket.MINUTE_NANOS);

    BucketLimiter(Enforcement enforcement, long limit) {
        this.enforcement = enforcement;
        this.limit = limit;
        this.capacity = enforcement.allowance(limit);
        this.level = capacity;
    }

    @Override
    public long limit() {
        return limit;
    }

    @Override
    public Limiter withLimit(long newLimit, long nowNanos) {
        refill(nowNanos);
        double used = capacity - level;
        limit = newLimit;
        capacity = enforcement.allowance(newLimit);
        level = capacity - used;
        return this;
    }

    private double perNano() {
        return (double) limit / TokenBucket.MINUTE_NANOS;
    }

    private void refill(long now) {
        if (lastNanos != Long.MIN_VALUE && now > lastNanos) {
            level = Math.min(capacity, level + (now - lastNanos) * perNano());
            if (capacity - level < EPSILON) {
                level = capacity;
            }
        }
        lastNanos = Math.max(lastNanos, now);
    }

    private boolean full() {
        return level >= capacity - EPSILON;
    }

    @Override
    public boolean fits(long amount, long nowNanos) {
        refill(nowNanos);
        return full() || level + EPSILON >= Math.max(amount, 1);
    }

    @Override
    public long nanosUntilFits(long amount, long nowNanos) {
        refill(nowNanos);
        double target = Math.min(Math.max(amount, 1), capacity);
        double missing = target - level;
        return missing <= EPSILON ? 0 : Math.max(1, (long) Math.ceil(missing / perNano()));
    }

    @Override
    public long nanosUntilFull(long nowNanos) {
        refill(nowNanos);
        double missing = capacity - level;
        return missing <= EPSILON ? 0 : (long) Math.ceil(missing / perNano());
    }

    @Override
    public void charge(long amount, long nowNanos) {
        refill(nowNanos);
        level = Math.min(capacity, level - amount);
        minuteLog.add(amount, nowNanos);
    }

    /** Providers report per-minute figures: usage over the trailing minute against the limit. */
    @Override
    public Gauge gauge(long nowNanos) {
        return minuteGauge(nowNanos);
    }

    @Override
    public Gauge minuteGauge(long nowNanos) {
        double used = minuteLog.used(nowNanos);
        long remaining = Math.max(0, (long) Math.floor(limit - used + EPSILON));
        return new Gauge(limit, remaining, nanosUntilFull(nowNanos));
    }

    @Override
    public long initialHeadroom() {
        return (long) Math.floor(capacity);
    }

    @Override
    public long headroom(long nowNanos) {
        double l = level;
        if (lastNanos != Long.MIN_VALUE && nowNanos > lastNanos) {
            l = Math.min(capacity, l + (nowNanos - lastNanos) * perNano());
        }
        return Math.max(0, (long) Math.floor(l + EPSILON));
    }
}
