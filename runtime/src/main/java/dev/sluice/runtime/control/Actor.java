package dev.sluice.runtime.control;

import dev.sluice.runtime.config.AdminScope;
import java.util.Objects;

/**
 * Who asks for a change: an admin token's id (never its secret) and its scope.
 *
 * @param tokenId as audit records name it
 * @param scope what it may do
 * @param oversubscription for a partner, what it may hand out as a multiple of its allocation
 */
public record Actor(String tokenId, AdminScope scope, double oversubscription) {

    /** The file itself, replaying or reloading: may do everything. */
    public static final Actor CONFIG = new Actor("config", AdminScope.ADMIN);

    public Actor {
        Objects.requireNonNull(tokenId, "tokenId");
        Objects.requireNonNull(scope, "scope");
    }

    /** With no oversubscription. */
    public Actor(String tokenId, AdminScope scope) {
        this(tokenId, scope, dev.sluice.runtime.config.AdminToken.DEFAULT_OVERSUBSCRIPTION);
    }
}
