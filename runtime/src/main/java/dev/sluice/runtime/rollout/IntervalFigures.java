package dev.sluice.runtime.rollout;

import java.util.OptionalLong;

/**
 * What the target did in one interval: the figures a verdict is drawn from, kept with it.
 *
 * @param attempts attempts that reached (or were sent to) the target
 * @param throttled of which the provider answered 429
 * @param failed of which failed (5xx, 529, timeouts, resets)
 * @param requests requests that had an attempt on the target
 * @param fellBack of which ended on another deployment
 * @param p95LatencyNanos the p95 latency of answered attempts, when there were any
 * @param p95TimeToFirstTokenNanos the p95 time to first token of answered streams, when there were any
 * @param p95QueueWaitNanos the p95 queue wait of the requests, when there were any
 * @param estimateError the mean |used - reserved| over reserved tokens of answered attempts (0 with none)
 */
public record IntervalFigures(long attempts, long throttled, long failed, long requests, long fellBack,
        OptionalLong p95LatencyNanos, OptionalLong p95TimeToFirstTokenNanos, OptionalLong p95QueueWaitNanos,
        double estimateError) {

    /** An interval in which nothing ran on the target. */
    public static final IntervalFigures NONE = new IntervalFigures(0, 0, 0, 0, 0, OptionalLong.empty(),
            OptionalLong.empty(), OptionalLong.empty(), 0);

    /** Provider 429s over attempts; 0 with none. */
    public double provider429Rate() {
        return attempts == 0 ? 0 : (double) throttled / attempts;
    }

    /** Failures over attempts; 0 with none. */
    public double errorRate() {
        return attempts == 0 ? 0 : (double) failed / attempts;
    }

    /** Requests that left the target over requests on it; 0 with none. */
    public double fallbackRate() {
        return requests == 0 ? 0 : (double) fellBack / requests;
    }
}
