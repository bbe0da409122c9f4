package dev.sluice.sim.metrics;

/** How a client request finally ended, after any retries. */
public enum Outcome {
    /** The provider answered with a 2xx. */
    SUCCESS,
    /** The gateway refused it (rejected, shed, timed out in a queue) and the client gave up. */
    REJECTED_LOCALLY,
    /** The provider's 429 was the last answer. */
    PROVIDER_RATE_LIMITED,
    /** A 5xx, 529 or broken connection was the last answer. */
    PROVIDER_ERROR,
    /** The request can never fit a limit. */
    TOO_LARGE,
    /**
     * The client's deadline passed while the request was still queued in the gateway or still
     * generating at the provider: the client gave up (whatever came later).
     */
    TIMED_OUT
}
