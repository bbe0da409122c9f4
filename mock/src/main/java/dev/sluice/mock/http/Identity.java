package dev.sluice.mock.http;

import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Who sent a request. API keys are read to check and to hash, never kept or logged. */
final class Identity {

    private Identity() {}

    /** The API key in whichever header the flavour uses; null when none. */
    static String apiKey(HttpServerRequest req) {
        String auth = req.getHeader("authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return auth.substring(7).trim();
        }
        for (String header : new String[] {"api-key", "x-api-key", "x-goog-api-key"}) {
            String v = req.getHeader(header);
            if (v != null) {
                return v.trim();
            }
        }
        return req.getParam("key");
    }

    /** The tenant: the explicit header, else a short hash of the key (the key itself is never kept). */
    static String tenant(HttpServerRequest req, String key) {
        String explicit = req.getHeader(MockProviderServer.HEADER_TENANT);
        if (explicit != null && !explicit.isBlank()) {
            return explicit.trim();
        }
        if (key == null || key.isEmpty()) {
            return "anonymous";
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "key-" + HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }
}
