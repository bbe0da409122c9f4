package dev.sluice.runtime.config;

import java.util.Objects;
import java.util.Optional;

/**
 * A token for the admin listener, held only as the SHA-256 hash of its secret.
 *
 * @param id its name in configuration, logs and audit records (never the secret)
 * @param scope what it may do
 * @param secretSha256 the hash of its secret; empty when its environment variable is not set
 * @param secretSource where the secret comes from, for messages ({@code token_env SLUICE_ADMIN_TOKEN})
 */
public record AdminToken(String id, AdminScope scope, Optional<byte[]> secretSha256, String secretSource) {

    public AdminToken {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(secretSha256, "secretSha256");
        Objects.requireNonNull(secretSource, "secretSource");
        secretSha256 = secretSha256.map(byte[]::clone);
    }

    @Override
    public Optional<byte[]> secretSha256() {
        return secretSha256.map(byte[]::clone);
    }

    @Override
    public String toString() {
        return "AdminToken[" + id + " " + scope.wireName() + "]";
    }
}
