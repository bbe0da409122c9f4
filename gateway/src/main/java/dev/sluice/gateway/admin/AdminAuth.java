package dev.sluice.gateway.admin;

import dev.sluice.runtime.config.AdminSettings;
import dev.sluice.runtime.config.AdminToken;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.http.HttpServerRequest;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Resolves the admin token a request presents ({@code Authorization: Bearer}). Only SHA-256 hashes
 * of tokens are held; the presented token is hashed, the hash selects a candidate, and the
 * candidate is compared with {@link MessageDigest#isEqual} (constant time). Client API keys are
 * not admin tokens: the configuration refuses a token equal to any key.
 */
final class AdminAuth {

    private record Entry(byte[] hash, AdminPrincipal principal) {}

    /** The tokens of one version of the settings, by hash. */
    private record Ring(AdminSettings from, Map<ByteBuffer, Entry> byHash) {}

    private final Supplier<AdminSettings> settings;
    private volatile Ring ring;

    AdminAuth(AdminSettings settings) {
        this(() -> settings);
    }

    /** Tokens from {@code settings} as they are now: a reload that changes them is in force at the next request. */
    AdminAuth(Supplier<AdminSettings> settings) {
        this.settings = settings;
        this.ring = ring(settings.get());
    }

    private static Ring ring(AdminSettings s) {
        Map<ByteBuffer, Entry> byHash = new HashMap<>();
        for (AdminToken t : s.tokens().values()) {
            t.secretSha256().ifPresent(h -> byHash.put(ByteBuffer.wrap(h), new Entry(h,
                    new AdminPrincipal(t.id(), t.scope(), t.oversubscription()))));
        }
        return new Ring(s, byHash);
    }

    private Map<ByteBuffer, Entry> current() {
        AdminSettings now = settings.get();
        Ring r = ring;
        if (r.from() != now) {
            r = ring(now);
            ring = r;
        }
        return r.byHash();
    }

    /** The principal of the token {@code request} presents, if it presents a known one. */
    Optional<AdminPrincipal> principal(HttpServerRequest request) {
        String auth = request.getHeader("authorization");
        if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        String presented = auth.substring(7).strip();
        if (presented.isEmpty()) {
            return Optional.empty();
        }
        byte[] hash = ConfigLoader.sha256(presented);
        Entry e = current().get(ByteBuffer.wrap(hash));
        if (e == null || !MessageDigest.isEqual(e.hash, hash)) {
            return Optional.empty();
        }
        return Optional.of(e.principal);
    }
}
