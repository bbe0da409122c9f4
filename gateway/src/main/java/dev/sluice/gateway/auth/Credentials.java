package dev.sluice.gateway.auth;

import io.vertx.core.http.HttpServerRequest;
import java.util.List;
import java.util.Optional;

/** Where clients put their API key: each provider SDK has its own header. */
public final class Credentials {

    private Credentials() {}

    /**
     * The key the client presented: {@code Authorization: Bearer} (OpenAI SDKs), {@code x-api-key}
     * (Anthropic), {@code api-key} (Azure OpenAI SDKs), {@code x-goog-api-key} or the {@code key} query
     * parameter (Gemini).
     */
    public static Optional<String> presented(HttpServerRequest request) {
        List<String> all = all(request);
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(0));
    }

    /**
     * Whether the client presented two different keys (say a Bearer token and a different
     * {@code x-api-key}): which one it meant cannot be known, so the request is refused rather
     * than silently served under one of them.
     */
    public static boolean conflicting(HttpServerRequest request) {
        List<String> all = all(request);
        for (int i = 1; i < all.size(); i++) {
            if (!java.security.MessageDigest.isEqual(all.get(0).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    all.get(i).getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Every key presented, in the order {@link #presented} prefers them; a header (or the query
     * parameter) given twice counts twice, so two different values in it conflict too.
     */
    private static List<String> all(HttpServerRequest request) {
        List<String> out = new java.util.ArrayList<>(2);
        for (String auth : request.headers().getAll("authorization")) {
            if (auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
                String v = auth.substring(7).strip();
                if (!v.isEmpty()) {
                    out.add(v);
                }
            }
        }
        for (String name : new String[] {"x-api-key", "api-key", "x-goog-api-key"}) {
            add(out, request.headers().getAll(name));
        }
        add(out, request.params().getAll("key"));
        return out;
    }

    private static void add(List<String> out, List<String> values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                out.add(v.strip());
            }
        }
    }
}
