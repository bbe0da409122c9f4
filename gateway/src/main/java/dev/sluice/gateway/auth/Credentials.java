package dev.sluice.gateway.auth;

import io.vertx.core.http.HttpServerRequest;
import java.util.Optional;

/** Where clients put their API key: each provider SDK has its own header. */
public final class Credentials {

    private Credentials() {}

    /**
     * The key the client presented: {@code Authorization: Bearer} (OpenAI SDKs), {@code x-api-key}
     * (Anthropic), {@code x-goog-api-key} or the {@code key} query parameter (Gemini).
     */
    public static Optional<String> presented(HttpServerRequest request) {
        String auth = request.getHeader("authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String v = auth.substring(7).strip();
            if (!v.isEmpty()) {
                return Optional.of(v);
            }
        }
        String v = request.getHeader("x-api-key");
        if (v != null && !v.isBlank()) {
            return Optional.of(v.strip());
        }
        v = request.getHeader("x-goog-api-key");
        if (v != null && !v.isBlank()) {
            return Optional.of(v.strip());
        }
        v = request.getParam("key");
        if (v != null && !v.isBlank()) {
            return Optional.of(v.strip());
        }
        return Optional.empty();
    }
}
