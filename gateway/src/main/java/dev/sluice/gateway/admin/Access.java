package dev.sluice.gateway.admin;

/** What an admin route asks of its caller. */
public enum Access {
    /** No token: probes of the admin listener itself. */
    OPEN,
    /** Any valid token; a partner's handler answers for its own subtree only. */
    READ,
    /** A token that may change things: admin, or a partner within its subtree. */
    CHANGE,
    /** The {@code admin} scope only. */
    ADMIN
}
