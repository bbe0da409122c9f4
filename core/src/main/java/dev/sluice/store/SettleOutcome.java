package dev.sluice.store;

/** How a settlement or release of a lease ended. */
public enum SettleOutcome {
    /** Actual usage replaced the estimate. */
    SETTLED,
    /** Everything was given back: the request never reached the provider. */
    RELEASED,
    /** The lease had already ended (settled, released or expired); nothing changed. */
    ALREADY_CLOSED
}
