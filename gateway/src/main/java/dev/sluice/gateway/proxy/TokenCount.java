package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.http.Operation;
import dev.sluice.runtime.config.ProfileConfig;
import java.util.Optional;

/**
 * Anthropic's {@code count_tokens} and Gemini's {@code countTokens}: answered from the estimator,
 * since counting never spends provider quota.
 */
final class TokenCount {

    private TokenCount() {}

    static void answer(ClientRequest r, byte[] raw) {
        Optional<RequestBody> body = RequestBody.read(r, raw);
        if (body.isEmpty()) {
            return;
        }
        ObjectNode json = body.get().json();
        ProfileConfig profile = body.get().profile();
        Operation op = r.route.operation();
        RequestBody.quote(r, json, profile, r.key.trafficClass(), estimate -> {
            String field = op == Operation.ANTHROPIC_COUNT_TOKENS ? "input_tokens" : "totalTokens";
            r.answerJson(200, ProxyJson.MAPPER.createObjectNode().put(field, estimate.promptTokens()));
        });
    }
}
