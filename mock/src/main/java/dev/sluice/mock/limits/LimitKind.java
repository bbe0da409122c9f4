package dev.sluice.mock.limits;

/** The dimension of a provider limit; names which one rejected a request. */
public enum LimitKind {
    /** Requests per sub-window of the request window (RPM scaled to the window). */
    REQUESTS,
    /** Requests per day (window of 24 h from the model's day origin). */
    REQUESTS_PER_DAY,
    /** Requests in flight at the same time. */
    CONCURRENCY,
    /** A sudden rise of the request rate over its recent baseline. */
    ACCELERATION,
    /** Input tokens per minute. */
    INPUT_TOKENS,
    /** Output tokens per minute. */
    OUTPUT_TOKENS,
    /** Input plus output tokens per minute. */
    TOKENS;

    /** Whether this kind is measured in tokens. */
    public boolean isTokens() {
        return this == INPUT_TOKENS || this == OUTPUT_TOKENS || this == TOKENS;
    }
}
