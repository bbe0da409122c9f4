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
 * @param oversubscription for a partner: what it may hand out below its subject, summed per
 *     dimension, as a multiple of its allocation (1: exactly its allocation)
 */
public record AdminToken(String id, AdminScope scope, Optional<byte[]> secretSha256, String secretSource,
        double oversubscription) {

    /** A partner hands out at most its allocation unless given more. */
    public static final double DEFAULT_OVERSUBSCRIPTION = 1.0;
    /** Ten times its allocation: beyond that the allocation means nothing. */
    public static final double MAX_OVERSUBSCRIPTION = 10.0;

    /** With no oversubscription. */
    public AdminToken(String id, AdminScope scope, Optional<byte[]> secretSha256, String secretSource) {
        this(id, scope, secretSha256, secretSource, DEFAULT_OVERSUBSCRIPTION);
    }

    public AdminToken {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(secretSha256, "secretSha256");
        Objects.requireNonNull(secretSource, "secretSource");
        secretSha256 = secretSha256.map(byte[]::clone);
        dev.sluice.config.ConfigException.require(oversubscription >= 1 && oversubscription <= MAX_OVERSUBSCRIPTION,
                "oversubscription", "1.0 to " + MAX_OVERSUBSCRIPTION, oversubscription);
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
