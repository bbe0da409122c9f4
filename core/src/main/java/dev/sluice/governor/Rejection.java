package dev.sluice.governor;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything needed to explain a refusal later and to tell the caller whether and when to retry.
 *
 * @param decision the {@code gateway_decision}
 * @param code machine-readable cause, e.g. {@code tenant_input_tpm_exhausted}
 * @param limiter the dimension that bound, when one did
 * @param scope the bucket that bound, when one did
 * @param retryAfterMillis when capacity is expected back, from refill arithmetic; at least 1
 * @param retryable false where retrying cannot help (too large, daily cap spent, paused)
 * @param message one human sentence
 * @param explanation what decided, and the predicted wait against the budget
 */
public record Rejection(GatewayDecision decision, String code, Optional<Dimension> limiter, Optional<Scope> scope,
        long retryAfterMillis, boolean retryable, String message, Explanation explanation) {

    public Rejection {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(explanation, "explanation");
        retryAfterMillis = Math.max(1, retryAfterMillis);
    }

    /** A refusal explained by its scope and limiter alone (an operator's pause, a shed request). */
    public Rejection(GatewayDecision decision, String code, Optional<Dimension> limiter, Optional<Scope> scope,
            long retryAfterMillis, boolean retryable, String message) {
        this(decision, code, limiter, scope, retryAfterMillis, retryable, message,
                Explanation.of(scope, limiter, decision == GatewayDecision.PAUSED));
    }

    /**
     * The request was waiting for, or about to be sent to, a deployment that a configuration
     * change removed: nothing is held, and, as a refusal by the deployment's own scope, its
     * profile's routing may move it to another of its deployments before it is answered.
     */
    public static Rejection deploymentRemoved(TrafficClass c, Scope deployment) {
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, "deployment_removed", Optional.empty(),
                Optional.of(deployment), 1, true, String.format(java.util.Locale.ROOT, "The %s request was waiting for "
                        + "%s, which a configuration change removed, and no other deployment of its profile could take it.",
                        c.wireName(), deployment));
    }

    /** The {@code limiter} field of the error: {@code input_tpm}, or {@code none}. */
    public String limiterName() {
        return limiter.map(Dimension::limiterName).orElse("none");
    }

    /** The {@code scope} field of the error: {@code tenant:acme}, or {@code gateway}. */
    public String scopeName() {
        return scope.map(Scope::key).orElse("gateway");
    }
}
