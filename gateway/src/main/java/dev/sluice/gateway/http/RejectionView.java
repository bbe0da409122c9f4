package dev.sluice.gateway.http;

import dev.sluice.governor.Explanation;
import dev.sluice.governor.GatewayDecision;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a 429 from Sluice says, whichever route it is sent on: the normalised rejection of
 * the design brief.
 *
 * @param decision the {@code gateway_decision}
 * @param code machine-readable cause
 * @param message one human sentence
 * @param limiter the limiter that bound, or {@code none}
 * @param scope the bucket that bound ({@code tenant:acme}), or {@code gateway}
 * @param provider the deployment's provider kind
 * @param modelProfile the profile the client asked for
 * @param providerModel the provider model it routes to
 * @param retryAfterMillis when capacity is expected back (the real figure, not capped)
 * @param retryable false where waiting cannot help
 * @param tenantId the caller's tenant
 * @param apiKeyId the caller's key id (never the secret)
 * @param requestClass the traffic class
 * @param estimatedInputTokens the preflight input estimate
 * @param estimatedOutputTokens the preflight output reservation
 * @param traceId the request's trace id
 * @param explanation what decided a local refusal (scope, dimension, pause, reserve, predicted wait
 *     against the budget); empty for a provider's refusal
 * @param mode the deployment's operating mode when it was decided, when known
 * @param fallbackAllowed whether the request could have run on another deployment of its profile
 * @param fallbackForbiddenBy when it could not, the rule that forbade it
 */
public record RejectionView(GatewayDecision decision, String code, String message, String limiter, String scope,
        String provider, String modelProfile, String providerModel, long retryAfterMillis, boolean retryable,
        String tenantId, String apiKeyId, String requestClass, long estimatedInputTokens, long estimatedOutputTokens,
        String traceId, Optional<Explanation> explanation, Optional<String> mode, boolean fallbackAllowed,
        Optional<String> fallbackForbiddenBy) {

    /** The request had no other deployment to run on: {@code fallback_allowed} false, by {@code no_other_deployment}. */
    public RejectionView(GatewayDecision decision, String code, String message, String limiter, String scope,
            String provider, String modelProfile, String providerModel, long retryAfterMillis, boolean retryable,
            String tenantId, String apiKeyId, String requestClass, long estimatedInputTokens,
            long estimatedOutputTokens, String traceId, Optional<Explanation> explanation, Optional<String> mode) {
        this(decision, code, message, limiter, scope, provider, modelProfile, providerModel, retryAfterMillis,
                retryable, tenantId, apiKeyId, requestClass, estimatedInputTokens, estimatedOutputTokens, traceId,
                explanation, mode, false, Optional.of("no_other_deployment"));
    }

    /** A refusal with nothing of the governor's to explain (a provider's). */
    public RejectionView(GatewayDecision decision, String code, String message, String limiter, String scope,
            String provider, String modelProfile, String providerModel, long retryAfterMillis, boolean retryable,
            String tenantId, String apiKeyId, String requestClass, long estimatedInputTokens,
            long estimatedOutputTokens, String traceId) {
        this(decision, code, message, limiter, scope, provider, modelProfile, providerModel, retryAfterMillis,
                retryable, tenantId, apiKeyId, requestClass, estimatedInputTokens, estimatedOutputTokens, traceId,
                Optional.empty(), Optional.empty());
    }

    public RejectionView {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(modelProfile, "modelProfile");
        Objects.requireNonNull(providerModel, "providerModel");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(apiKeyId, "apiKeyId");
        Objects.requireNonNull(requestClass, "requestClass");
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(explanation, "explanation");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(fallbackForbiddenBy, "fallbackForbiddenBy");
        retryAfterMillis = Math.max(1, retryAfterMillis);
    }
}
