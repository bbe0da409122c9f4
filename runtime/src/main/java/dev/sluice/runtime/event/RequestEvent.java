package dev.sluice.runtime.event;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * One client request from arrival to its answer: every fact an operator, the usage ledger, the
 * metrics or the dashboard needs to explain it. Emitted once per request, after its answer has
 * gone (or its client has). No secret, prompt or answer is in it.
 *
 * @param traceId the W3C trace id (the caller's {@code traceparent}, or one Sluice made)
 * @param spanId Sluice's own span for this request, 16 lowercase hex digits, new for every request: a
 *     caller's trace may hold many requests, so the trace id and this together name one request
 * @param receivedAtEpochMillis when it arrived, wall time
 * @param operation what was asked, such as {@code openai.chat}, {@code anthropic.messages}
 * @param caller who asked; empty when the request carried no known key
 * @param profile the model profile named; empty when none was resolved
 * @param trafficClass the class it was served as ({@code interactive} ...); empty before it was known
 * @param deployment where it last ran or was to run; empty when no deployment was chosen
 * @param provider the provider kind of that deployment; empty with it
 * @param providerModel the model name sent upstream; empty with it
 * @param providerScope that deployment's scope labels
 * @param streaming whether the client asked for a stream
 * @param estimate what was reserved; {@link TokenCounts#NONE} when it was never quoted
 * @param usage what the provider reported (summed over attempts), or Sluice's count
 * @param usageReported whether every attempt's usage came from the provider
 * @param decision how admission went: {@code admitted}, {@code queued}, {@code rejected}, or
 *     {@code none} when the request ended before admission (a bad request, an unknown key)
 * @param gatewayDecision the error's {@code gateway_decision} when the answer was a refusal
 * @param decider the limiter and scope that refused it or made it wait, when one did
 * @param code the error code of a refusal or failure ({@code tenant_rpm_exhausted} ...)
 * @param queueWaitNanos how long it waited in its class queue before its first attempt
 * @param mode the deployment's adaptive mode at admission ({@code normal} ...); empty without one
 * @param brownout whether admission trimmed it for brownout
 * @param borrowed whether it was admitted on capacity beyond its tenant's guaranteed share of the
 *     deployment (idle capacity lent by other tenants): its tenant has guaranteed minimums there and
 *     had met them all ({@code Decision.Admitted.borrowed}); false for a tenant with no guarantee
 * @param attempts how many provider attempts were made (0 when none)
 * @param fallback when an attempt ran on a deployment other than the first choice, why
 * @param status the HTTP status answered; 499 when the client went away before its answer
 * @param retryAfterMillis the retry hint given to the client, when one was
 * @param latencyNanos from arrival to the end of the answer
 * @param timeToFirstTokenNanos from arrival to the first byte of the provider's answer, when one came
 * @param attemptEvents every attempt, in order
 * @param parentSpanId the span of the caller's {@code traceparent}, which Sluice's span is a child
 *     of; empty when the caller sent none (Sluice's span is then the trace's root)
 */
public record RequestEvent(String traceId, String spanId, long receivedAtEpochMillis, String operation,
        Optional<Caller> caller, Optional<String> profile, Optional<String> trafficClass, Optional<String> deployment,
        Optional<String> provider, Optional<String> providerModel, Map<String, String> providerScope,
        boolean streaming, TokenCounts estimate, TokenCounts usage, boolean usageReported, String decision,
        Optional<String> gatewayDecision, Optional<Decider> decider, Optional<String> code, long queueWaitNanos,
        Optional<String> mode, boolean brownout, boolean borrowed, int attempts, Optional<String> fallback,
        int status, OptionalLong retryAfterMillis, long latencyNanos, OptionalLong timeToFirstTokenNanos,
        List<AttemptEvent> attemptEvents, Optional<String> parentSpanId) {

    /** The status recorded for a request whose client went away before it was answered (nginx's convention). */
    public static final int CLIENT_CLOSED_REQUEST = 499;

    private static final Pattern SPAN_ID = Pattern.compile("[0-9a-f]{16}");

    public RequestEvent {
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(spanId, "spanId");
        if (!SPAN_ID.matcher(spanId).matches()) {
            throw new IllegalArgumentException("spanId: \"" + spanId + "\" (expected: 16 lowercase hex digits)");
        }
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(caller, "caller");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(trafficClass, "trafficClass");
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(providerModel, "providerModel");
        providerScope = Map.copyOf(providerScope);
        Objects.requireNonNull(estimate, "estimate");
        Objects.requireNonNull(usage, "usage");
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(gatewayDecision, "gatewayDecision");
        Objects.requireNonNull(decider, "decider");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(fallback, "fallback");
        Objects.requireNonNull(retryAfterMillis, "retryAfterMillis");
        Objects.requireNonNull(timeToFirstTokenNanos, "timeToFirstTokenNanos");
        attemptEvents = List.copyOf(attemptEvents);
        Objects.requireNonNull(parentSpanId, "parentSpanId");
        parentSpanId.ifPresent(p -> {
            if (!SPAN_ID.matcher(p).matches()) {
                throw new IllegalArgumentException("parentSpanId: \"" + p + "\" (expected: 16 lowercase hex digits)");
            }
        });
    }

    /** A request whose caller sent no trace context: Sluice's span is the trace's root. */
    public RequestEvent(String traceId, String spanId, long receivedAtEpochMillis, String operation,
            Optional<Caller> caller, Optional<String> profile, Optional<String> trafficClass, Optional<String> deployment,
            Optional<String> provider, Optional<String> providerModel, Map<String, String> providerScope,
            boolean streaming, TokenCounts estimate, TokenCounts usage, boolean usageReported, String decision,
            Optional<String> gatewayDecision, Optional<Decider> decider, Optional<String> code, long queueWaitNanos,
            Optional<String> mode, boolean brownout, boolean borrowed, int attempts, Optional<String> fallback,
            int status, OptionalLong retryAfterMillis, long latencyNanos, OptionalLong timeToFirstTokenNanos,
            List<AttemptEvent> attemptEvents) {
        this(traceId, spanId, receivedAtEpochMillis, operation, caller, profile, trafficClass, deployment, provider,
                providerModel, providerScope, streaming, estimate, usage, usageReported, decision, gatewayDecision,
                decider, code, queueWaitNanos, mode, brownout, borrowed, attempts, fallback, status, retryAfterMillis,
                latencyNanos, timeToFirstTokenNanos, attemptEvents, Optional.empty());
    }
}
