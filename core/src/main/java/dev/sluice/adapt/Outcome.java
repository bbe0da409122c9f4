package dev.sluice.adapt;

import dev.sluice.limits.Dimension;
import dev.sluice.signal.LimitKind;
import dev.sluice.signal.ProviderSignal;
import java.util.Optional;
import java.util.Set;

/** What one provider answer means for adaptive control. */
enum Outcome {
    /** A 2xx: capacity was there. */
    SUCCESS,
    /** A 429 for a per-window limit, or an overload (529, 503, shared capacity): slow down and pause. */
    LIMITED,
    /** A refusal that waiting seconds will not cure (spent or zero quota, spend cap): pause long, keep the rate. */
    EXHAUSTED,
    /** A timeout: only its latency is telling. */
    SLOW,
    /** Says nothing about capacity (client errors, request too large, server errors, no connection). */
    IGNORED;

    private static final Set<String> EXHAUSTED_REASONS = Set.of(ProviderSignal.REASON_INSUFFICIENT_QUOTA,
            ProviderSignal.REASON_SPEND_LIMIT, ProviderSignal.REASON_ZERO_QUOTA,
            ProviderSignal.REASON_QUOTA_EXHAUSTED);

    static Outcome of(ProviderSignal s) {
        return switch (s.status()) {
            case SUCCESS -> SUCCESS;
            case OVERLOADED -> LIMITED;
            case TIMEOUT -> SLOW;
            case RATE_LIMITED -> {
                if (ProviderSignal.REASON_REQUEST_TOO_LARGE.equals(s.reason())) {
                    // One oversized request says nothing about the rate everyone else may use.
                    yield IGNORED;
                }
                boolean quota = s.limitHit().filter(k -> k == LimitKind.DAILY_QUOTA || k == LimitKind.SPEND_QUOTA)
                        .isPresent();
                yield quota || EXHAUSTED_REASONS.contains(s.reason()) ? EXHAUSTED : LIMITED;
            }
            default -> IGNORED;
        };
    }

    /** The bucket dimension a provider limit corresponds to, when there is one. */
    static Optional<Dimension> dimensionOf(LimitKind kind) {
        return switch (kind) {
            case REQUESTS -> Optional.of(Dimension.REQUESTS);
            case INPUT_TOKENS -> Optional.of(Dimension.INPUT_TOKENS);
            case OUTPUT_TOKENS -> Optional.of(Dimension.OUTPUT_TOKENS);
            case TOKENS -> Optional.of(Dimension.TOTAL_TOKENS);
            case CONCURRENCY -> Optional.of(Dimension.CONCURRENT_REQUESTS);
            case DAILY_QUOTA, SPEND_QUOTA, UNKNOWN -> Optional.empty();
        };
    }
}
