package dev.sluice.signal;

/** What kind of answer a provider call produced, independent of the provider's dialect. */
public enum SignalStatus {
    /** A 2xx response. */
    SUCCESS,
    /** HTTP 429: a limit or quota of this caller was hit. */
    RATE_LIMITED,
    /** HTTP 529 or 503: the provider as a whole is short of capacity, not this caller's quota. */
    OVERLOADED,
    /** Any other 5xx, or a status outside the ranges above. */
    SERVER_ERROR,
    /** HTTP 408 or 504, or no answer in time. */
    TIMEOUT,
    /** Any other 4xx. */
    CLIENT_ERROR,
    /** No HTTP response at all (refused, reset, DNS, TLS). */
    CONNECTION_FAILED
}
