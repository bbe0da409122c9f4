package dev.sluice.runtime.event;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One provider attempt of a request, from the moment it was sent (or was to be) to its end. No
 * secret, prompt or answer is in it.
 *
 * @param traceId the request's trace id
 * @param attempt 1 for the first attempt, 2 for the first retry ...
 * @param deployment the deployment it ran on
 * @param provider the provider kind's wire name ({@code openai}, {@code anthropic} ...)
 * @param providerModel the model name sent upstream
 * @param providerScope the deployment's scope labels (project, region, workspace ...)
 * @param startedAtEpochMillis when it was sent, wall time
 * @param result how it ended
 * @param status the provider's HTTP status; 0 when there was none (timeout, reset, never sent)
 * @param reason the provider signal's machine-readable cause ({@code ok}, {@code rate_limited} ...)
 * @param limitHit the provider limit named in a refusal ({@code input_tpm} ...), when one was
 * @param providerRetryAfterMillis the wait the provider asked for, when it gave one
 * @param estimate what was reserved for it
 * @param usage what it used: the provider's report, or Sluice's count when there was none
 * @param usageReported whether {@code usage} came whole from the provider
 * @param cacheReadsCounted whether this route's provider counts cache reads against its input
 *     limit (the profile's {@code cache_read_counts_against_input_limit}); where it does not, the
 *     cache reads are input the limit never saw
 * @param settlement how its reservation ended
 * @param latencyNanos from sending to the end of the answer (or the failure)
 * @param timeToFirstTokenNanos from sending to the first byte of the answer, when one came
 * @param retryDelayMillis when the lifecycle decided to try again, after how long
 */
public record AttemptEvent(String traceId, int attempt, String deployment, String provider, String providerModel,
        Map<String, String> providerScope, long startedAtEpochMillis, AttemptResult result, int status, String reason,
        Optional<String> limitHit, OptionalLong providerRetryAfterMillis, TokenCounts estimate, TokenCounts usage,
        boolean usageReported, boolean cacheReadsCounted, Settlement settlement, long latencyNanos,
        OptionalLong timeToFirstTokenNanos, OptionalLong retryDelayMillis) {

    public AttemptEvent {
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(providerModel, "providerModel");
        providerScope = Map.copyOf(providerScope);
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(limitHit, "limitHit");
        Objects.requireNonNull(providerRetryAfterMillis, "providerRetryAfterMillis");
        Objects.requireNonNull(estimate, "estimate");
        Objects.requireNonNull(usage, "usage");
        Objects.requireNonNull(settlement, "settlement");
        Objects.requireNonNull(timeToFirstTokenNanos, "timeToFirstTokenNanos");
        Objects.requireNonNull(retryDelayMillis, "retryDelayMillis");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt: " + attempt + " (expected: >= 1)");
        }
    }
}
