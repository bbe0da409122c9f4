package dev.sluice.mock.http;

/** How the {@code Retry-After} header of a 429 or an overload is written. */
public enum RetryAfterForm {
    /** No {@code Retry-After} header. */
    ABSENT,
    /** Whole seconds, rounded up: {@code 3}. */
    INTEGER_SECONDS,
    /** Seconds with a fraction: {@code 1.25}. */
    FRACTIONAL_SECONDS,
    /** An IMF-fixdate that far in the future: {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
    HTTP_DATE,
    /** An IMF-fixdate one hour in the past, which clients must treat as "now". */
    PAST_HTTP_DATE,
    /** A value no client can parse. */
    GARBAGE
}
