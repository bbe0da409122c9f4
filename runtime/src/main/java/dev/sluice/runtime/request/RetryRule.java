package dev.sluice.runtime.request;

import dev.sluice.signal.ProviderSignal;
import java.util.OptionalLong;

/**
 * When the gateway sends an attempt again itself, holding its reservation. Pure; the
 * deployment's retry budget is asked only after this says yes.
 *
 * <ul>
 *   <li>A 429 is retried after its hint (or {@link #DEFAULT_RETRY_MILLIS} without one) when the
 *       provider says waiting helps, the wait fits the class's queue budget, and it ends before
 *       the caller's deadline.</li>
 *   <li>A server fault (500, 502, 503, 504, 529) that produced nothing is retried after
 *       {@link #DEFAULT_RETRY_MILLIS}, doubled for each earlier attempt, or after the provider's
 *       hint when that is shorter (a 503 asking for an hour is not obeyed: the next attempt is the
 *       probe), on the same conditions, at most {@link #MAX_FAULT_ATTEMPTS} attempts in all. A
 *       fault after part of the answer reached the client, or a timeout, is not retried: the
 *       provider may have done the work.</li>
 * </ul>
 */
final class RetryRule {

    /** When a 429 gives no hint, a gateway retry waits this long; a server fault's first retry too. */
    static final long DEFAULT_RETRY_MILLIS = 250;

    /** A request meets at most this many attempts when its provider keeps failing. */
    static final int MAX_FAULT_ATTEMPTS = 3;

    private RetryRule() {}

    /**
     * The delay before retrying a 429, or empty when it should be answered now.
     *
     * @param classBudgetMillis the class's queue wait budget
     * @param deadlineLeftMillis what is left of the caller's deadline; {@link Long#MAX_VALUE} for none
     */
    static OptionalLong afterThrottle(ProviderSignal signal, long classBudgetMillis, long deadlineLeftMillis) {
        long delay = Math.max(1, signal.retryAfterMillis().orElse(DEFAULT_RETRY_MILLIS));
        if (signal.retryable() && delay <= classBudgetMillis && delay < deadlineLeftMillis) {
            return OptionalLong.of(delay);
        }
        return OptionalLong.empty();
    }

    /** Whether {@code signal} is a provider fault that a second attempt may not meet. */
    static boolean serverFault(ProviderSignal signal) {
        int s = signal.httpStatus();
        return s == 500 || s == 502 || s == 503 || s == 504 || s == 529;
    }

    /**
     * The delay before retrying a server fault that produced nothing, or empty.
     *
     * @param attemptsSoFar attempts made, this one included
     */
    static OptionalLong afterFault(ProviderSignal signal, int attemptsSoFar, long classBudgetMillis,
            long deadlineLeftMillis) {
        if (!serverFault(signal) || attemptsSoFar >= MAX_FAULT_ATTEMPTS) {
            return OptionalLong.empty();
        }
        long backoff = DEFAULT_RETRY_MILLIS << Math.min(10, attemptsSoFar - 1);
        long delay = Math.max(1, Math.min(backoff, signal.retryAfterMillis().orElse(backoff)));
        if (delay <= classBudgetMillis && delay < deadlineLeftMillis) {
            return OptionalLong.of(delay);
        }
        return OptionalLong.empty();
    }
}
