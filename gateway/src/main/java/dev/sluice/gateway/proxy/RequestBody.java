package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.estimate.EstimatorProfile;
import dev.sluice.estimate.PromptShape;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.request.RequestPlan;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A model request's body, read: the JSON object and the profile it names (one the caller's key
 * may use). Shared by model calls and token counts; a body that is neither answers the client.
 */
record RequestBody(ObjectNode json, ProfileConfig profile) {

    /** The body of {@code r}, or empty once {@code r} has been answered with what is wrong. */
    static Optional<RequestBody> read(ClientRequest r, byte[] raw) {
        Optional<JsonNode> parsed = ProxyJson.parse(raw);
        if (parsed.isEmpty() || !parsed.get().isObject()) {
            r.fail(400, "invalid_json", "The request body is not a JSON object.", Optional.empty());
            return Optional.empty();
        }
        ObjectNode json = (ObjectNode) parsed.get();
        String model = r.route.pathModel().orElseGet(() -> json.path("model").isTextual() ? json.path("model").asText() : "");
        if (model.isBlank()) {
            r.fail(400, "missing_model", "The request names no model.", Optional.of("model"));
            return Optional.empty();
        }
        ProfileConfig profile = r.core.config().profiles().get(model);
        if (profile == null || !r.key.profiles().contains(model)) {
            r.fail(404, "model_not_found", "The model '" + model + "' does not exist or this API key may not use it.",
                    Optional.of("model"));
            return Optional.empty();
        }
        dev.sluice.gateway.http.HeaderNames.model(r.resp.headers(), profile);
        return Optional.of(new RequestBody(json, profile));
    }

    /**
     * Quotes the prompt, in place or on a worker ({@link PromptQuote}), and continues with the
     * estimate on the request's thread, unless the client has gone or the prompt cannot be quoted
     * (then {@code r} is answered).
     */
    static void quote(ClientRequest r, ObjectNode json, ProfileConfig profile, TrafficClass trafficClass,
            Consumer<TokenEstimate> then) {
        PromptShape shape;
        try {
            shape = PromptShapes.of(r.route.operation(), json);
        } catch (IllegalArgumentException e) {
            cannotQuote(r, e);
            return;
        }
        EstimatorProfile ep = profile.estimatorProfile();
        String key = RequestPlan.estimateKey(profile, trafficClass);
        var estimator = r.core.runtime.estimator();
        PromptQuote.quote(r.context, shape, p -> estimator.charsToCount(ep, p), () -> estimator.estimate(ep, key, shape))
                .onComplete(q -> {
                    if (r.state == ClientRequest.State.DONE) {
                        return; // the client left while it was counted
                    }
                    if (q.succeeded()) {
                        then.accept(q.result());
                    } else if (q.cause() instanceof IllegalArgumentException e) {
                        cannotQuote(r, e);
                    } else {
                        r.fail(500, "internal_error", "The request could not be quoted.", Optional.empty());
                    }
                });
    }

    private static void cannotQuote(ClientRequest r, IllegalArgumentException e) {
        r.fail(400, "invalid_request", "The request cannot be quoted: " + e.getMessage(), Optional.empty());
    }
}
