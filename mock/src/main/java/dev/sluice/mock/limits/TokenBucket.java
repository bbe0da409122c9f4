package dev.sluice.mock.limits;

/**
 * A per-minute token limit as the reference model enforces it: holds one minute's worth and refills
 * continuously at {@code capacity} per minute. What it tracks is the amount used; completions that
 * report more than was reserved push it past the capacity, a debt that refills like anything else.
 */
final class TokenBucket implements Limiter {

    static final long MINUTE_NANOS = 60_000_000_000L;

    /** Absorbs floating-point dust so whole-token arithmetic stays whole. */
    private static final double EPSILON = 1e-6;

    private long capacity;
    private double used;
    private long lastNanos;

    /** @param nowNanos creation time, or {@code Long.MIN_VALUE} to start at the first refill */
    TokenBucket(long capacity, long nowNanos) {
        this.capacity = capacity;
        this.lastNanos = nowNanos;
    }

    @Override
    public long limit() {
        return capacity;
    }

    @Override
    public Limiter withLimit(long newLimit, long nowNanos) {
        refill(nowNanos);
        this.capacity = newLimit;
        return this;
    }

    @Override
    public void tick(long nowNanos) {
        refill(nowNanos);
    }

    private void refill(long nowNanos) {
        if (lastNanos == Long.MIN_VALUE) {
            lastNanos = nowNanos;
            return;
        }
        long elapsed = nowNanos - lastNanos;
        if (elapsed <= 0) {
            return;
        }
        lastNanos = nowNanos;
        used = Math.max(0, used - (double) elapsed * capacity / MINUTE_NANOS);
        if (used < EPSILON) {
            used = 0;
        }
    }

    /** Whole tokens left, never negative. */
    private long remaining() {
        return Math.max(0, (long) Math.floor(capacity - used + EPSILON));
    }

    /** Whether {@code amount} fits now; a zero amount still needs one token left. */
    @Override
    public boolean fits(long amount, long nowNanos) {
        refill(nowNanos);
        return used + Math.max(amount, 1) <= capacity + EPSILON;
    }

    /** Time until {@code amount} fits, if nothing else is charged meanwhile. */
    @Override
    public long nanosUntilFits(long amount, long nowNanos) {
        refill(nowNanos);
        double excess = used + Math.max(amount, 1) - capacity;
        if (excess <= EPSILON) {
            return 0;
        }
        return (long) Math.ceil(excess * MINUTE_NANOS / capacity - EPSILON);
    }

    /** Time until nothing is used. */
    @Override
    public long nanosUntilFull(long nowNanos) {
        refill(nowNanos);
        if (used <= EPSILON) {
            return 0;
        }
        return (long) Math.ceil(used * MINUTE_NANOS / capacity - EPSILON);
    }

    /** Charges (positive) or refunds (negative); a refund never makes the bucket more than full. */
    @Override
    public void charge(long amount, long nowNanos) {
        refill(nowNanos);
        used = Math.max(0, used + amount);
    }

    @Override
    public Gauge gauge(long nowNanos) {
        return new Gauge(capacity, remaining(), nanosUntilFull(nowNanos));
    }

    /** The bucket holds a minute: its own state is the minute's. */
    @Override
    public Gauge minuteGauge(long nowNanos) {
        return gauge(nowNanos);
    }

    @Override
    public long initialHeadroom() {
        return capacity;
    }

    @Override
    public long headroom(long nowNanos) {
        double u = used;
        if (lastNanos != Long.MIN_VALUE && nowNanos > lastNanos) {
            u = Math.max(0, u - (double) (nowNanos - lastNanos) * capacity / MINUTE_NANOS);
        }
        return Math.max(0, (long) Math.floor(capacity - u + EPSILON));
    }
}
