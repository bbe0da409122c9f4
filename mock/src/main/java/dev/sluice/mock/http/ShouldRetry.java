package dev.sluice.mock.http;

/** Whether error responses carry the {@code x-should-retry} header the official SDKs obey. */
public enum ShouldRetry {
    ABSENT,
    TRUE,
    FALSE
}
