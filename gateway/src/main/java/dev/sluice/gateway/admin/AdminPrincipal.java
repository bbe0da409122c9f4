package dev.sluice.gateway.admin;

import dev.sluice.runtime.config.AdminScope;
import java.util.Objects;

/**
 * Who is calling the admin listener: a token's id (never its secret) and its scope.
 *
 * @param tokenId the token's id in configuration, as audit records name it
 * @param scope what it may do
 */
public record AdminPrincipal(String tokenId, AdminScope scope) {

    public AdminPrincipal {
        Objects.requireNonNull(tokenId, "tokenId");
        Objects.requireNonNull(scope, "scope");
    }
}
