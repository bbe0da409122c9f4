package dev.sluice.mock.limits;

/** What the wait a provider announces on a 429 means. */
public enum RetryAfterMeaning {
    /** When the refusing limit would take the request: the next window, or enough refill. */
    NEXT_WINDOW,
    /** When the refusing limit is back to its unused state (OpenAI's "reset" semantics). */
    FULL_REFILL,
    /** No wait is announced in headers; bodies may still name one. */
    ABSENT
}
