package dev.sluice.mock.limits;

/**
 * One rate limit as the provider counts it. Every method takes the current time; times never go
 * backwards (the model sees to that). Amounts are requests or tokens.
 */
interface Limiter {

    /** Brings time-driven state (a bucket's refill) up to {@code nowNanos}; the model calls it on every event. */
    default void tick(long nowNanos) {}

    /** The per-minute limit in force. */
    long limit();

    /** Whether {@code amount} may pass now. */
    boolean fits(long amount, long nowNanos);

    /** When {@code amount} would pass if nothing else arrived: the next window that can take it. */
    long nanosUntilFits(long amount, long nowNanos);

    /** When the limit is back to its unused state (what "reset" headers announce). */
    long nanosUntilFull(long nowNanos);

    /**
     * Counts {@code amount} now. A negative amount corrects an earlier reservation: buckets give it
     * back, windows keep what they counted.
     */
    void charge(long amount, long nowNanos);

    /**
     * A request arrived and was refused: how it counts depends on the limiter (a window counts
     * every arrival, as Azure does; a bucket takes nothing for a refusal). Nothing by default.
     */
    default void refused(long amount, long nowNanos) {}

    /** The state rate-limit headers and 429 messages report. */
    Gauge gauge(long nowNanos);

    /** Usage over the trailing minute against the per-minute limit. */
    Gauge minuteGauge(long nowNanos);

    /** The same limiter enforcing {@code newLimit}; what was used stays used. */
    Limiter withLimit(long newLimit, long nowNanos);

    /** What may pass at the very start beyond {@code limit} per minute: a full bucket's content, else 0. */
    long initialHeadroom();

    /**
     * What the limiter holds in store at {@code nowNanos} beyond what refills from then on (a
     * bucket's content; 0 for windows), without changing any state.
     */
    long headroom(long nowNanos);
}
