package dev.sluice.runtime.control;

import dev.sluice.runtime.config.AdminScope;
import java.util.Objects;

/**
 * Who asks for a change: an admin token's id (never its secret) and its scope.
 *
 * @param tokenId as audit records name it
 * @param scope what it may do
 */
public record Actor(String tokenId, AdminScope scope) {

    /** The file itself, replaying or reloading: may do everything. */
    public static final Actor CONFIG = new Actor("config", AdminScope.ADMIN);

    public Actor {
        Objects.requireNonNull(tokenId, "tokenId");
        Objects.requireNonNull(scope, "scope");
    }
}
