package dev.sluice.mock.limits;

/**
 * A per-minute limit enforced over a short fixed or sliding window (see {@link Enforcement}), with
 * the whole minute, of the same kind, enforcing the limit itself. Fixed windows are aligned on
 * multiples of their length. Reservations later corrected downwards stay counted: a window counts
 * what was charged when it was charged. A refused request counts in a fixed short window (Azure
 * counts failed requests towards its window) but not in the minute, nor in a sliding window: there
 * retries arriving faster than the window's allowance would keep it full for ever.
 */
final class WindowLimiter implements Limiter {

    private static final double EPSILON = 1e-6;

    private final Enforcement enforcement;
    private final boolean fixed;
    private long limit;
    private long shortNanos;
    private double allowance;
    /** Sliding: the short window's log; fixed: unused. */
    private final UsageLog shortLog;
    /** The trailing minute: enforces a sliding limit, and gives every kind its per-minute view. */
    private final UsageLog minuteLog = new UsageLog(TokenBucket.MINUTE_NANOS);
    private long shortIndex = Long.MIN_VALUE;
    private double shortUsed;
    private long minuteIndex = Long.MIN_VALUE;
    private double minuteUsed;

    WindowLimiter(Enforcement enforcement, long limit) {
        this.enforcement = enforcement;
        this.fixed = enforcement.kind() == WindowKind.FIXED;
        this.limit = limit;
        this.shortNanos = enforcement.windowNanos(limit);
        this.allowance = enforcement.allowance(limit);
        this.shortLog = new UsageLog(shortNanos);
    }

    private WindowLimiter(WindowLimiter from, long newLimit) {
        this(from.enforcement, newLimit);
        if (from.shortNanos == shortNanos) {
            shortIndex = from.shortIndex;
            shortUsed = from.shortUsed;
            shortLog.absorb(from.shortLog);
        }
        minuteIndex = from.minuteIndex;
        minuteUsed = from.minuteUsed;
        minuteLog.absorb(from.minuteLog);
    }

    @Override
    public long limit() {
        return limit;
    }

    @Override
    public Limiter withLimit(long newLimit, long nowNanos) {
        return new WindowLimiter(this, newLimit);
    }

    private void advance(long now) {
        if (fixed) {
            long s = Math.floorDiv(now, shortNanos);
            if (s != shortIndex) {
                shortIndex = s;
                shortUsed = 0;
            }
            long m = Math.floorDiv(now, TokenBucket.MINUTE_NANOS);
            if (m != minuteIndex) {
                minuteIndex = m;
                minuteUsed = 0;
            }
        }
    }

    private double shortUsed(long now) {
        advance(now);
        return fixed ? shortUsed : shortLog.used(now);
    }

    private double minuteUsed(long now) {
        advance(now);
        return fixed ? minuteUsed : minuteLog.used(now);
    }

    private static boolean stageFits(double used, double amount, double allowed) {
        return used <= EPSILON || used + amount <= allowed + EPSILON;
    }

    @Override
    public boolean fits(long amount, long nowNanos) {
        double a = Math.max(amount, 1);
        return stageFits(shortUsed(nowNanos), a, allowance) && stageFits(minuteUsed(nowNanos), a, limit);
    }

    @Override
    public long nanosUntilFits(long amount, long nowNanos) {
        double a = Math.max(amount, 1);
        long wait = 0;
        if (!stageFits(shortUsed(nowNanos), a, allowance)) {
            wait = fixed ? (shortIndex + 1) * shortNanos - nowNanos
                    : shortLog.nanosUntilAtMost(Math.max(0, allowance - a), nowNanos);
        }
        if (!stageFits(minuteUsed(nowNanos), a, limit)) {
            wait = Math.max(wait, fixed ? (minuteIndex + 1) * TokenBucket.MINUTE_NANOS - nowNanos
                    : minuteLog.nanosUntilAtMost(Math.max(0, limit - a), nowNanos));
        }
        return Math.max(wait, 1);
    }

    @Override
    public long nanosUntilFull(long nowNanos) {
        if (fixed) {
            advance(nowNanos);
            if (minuteUsed > EPSILON) {
                return (minuteIndex + 1) * TokenBucket.MINUTE_NANOS - nowNanos;
            }
            return shortUsed > EPSILON ? (shortIndex + 1) * shortNanos - nowNanos : 0;
        }
        return Math.max(shortLog.nanosUntilEmpty(nowNanos), minuteLog.nanosUntilEmpty(nowNanos));
    }

    @Override
    public void charge(long amount, long nowNanos) {
        if (amount <= 0) {
            return;
        }
        advance(nowNanos);
        if (fixed) {
            shortUsed += amount;
            minuteUsed += amount;
        } else {
            shortLog.add(amount, nowNanos);
        }
        minuteLog.add(amount, nowNanos);
    }

    @Override
    public void refused(long amount, long nowNanos) {
        if (amount > 0 && fixed) {
            advance(nowNanos);
            shortUsed += amount;
        }
    }

    /** Providers report per-minute figures even when a short window refuses. */
    @Override
    public Gauge gauge(long nowNanos) {
        return minuteGauge(nowNanos);
    }

    @Override
    public Gauge minuteGauge(long nowNanos) {
        double used = minuteUsed(nowNanos);
        long remaining = Math.max(0, (long) Math.floor(limit - used + EPSILON));
        return new Gauge(limit, remaining, nanosUntilFull(nowNanos));
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
}
