package dev.sluice.gateway.admin;

import dev.sluice.runtime.config.AdminScope;
import java.util.Objects;

/**
 * Who is calling the admin listener: a token's id (never its secret) and its scope.
 *
 * @param tokenId the token's id in configuration, as audit records name it
 * @param scope what it may do
 * @param oversubscription for a partner, what it may hand out as a multiple of its allocation
 */
public record AdminPrincipal(String tokenId, AdminScope scope, double oversubscription) {

    public AdminPrincipal {
        Objects.requireNonNull(tokenId, "tokenId");
        Objects.requireNonNull(scope, "scope");
    }
}
