package dev.sluice.runtime.request;

import dev.sluice.signal.ProviderSignal;
import java.util.OptionalLong;

/**
 * When the gateway sends a provider-refused attempt again itself, holding its reservation.
 * Pure; the retry budget is asked only after this says yes.
 *
 * <p>A 429 is retried after its hint (or {@link #DEFAULT_RETRY_MILLIS} without one) when the
 * provider says waiting helps, the wait fits the class's queue budget, and it ends before the
 * caller's deadline.
 */
final class RetryRule {

    /** When a 429 gives no hint, a gateway retry waits this long. */
    static final long DEFAULT_RETRY_MILLIS = 250;

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
}
