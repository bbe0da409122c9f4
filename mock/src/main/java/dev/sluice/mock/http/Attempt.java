package dev.sluice.mock.http;

import java.util.Objects;
import java.util.Optional;

/**
 * One request as the mock saw it, for asserting retries and outcomes.
 *
 * @param seq order of arrival, from 1
 * @param tenant {@code x-mock-tenant}, else a short hash of the API key, else {@code anonymous}
 * @param method the HTTP method
 * @param path the path without the query
 * @param status the status sent; 0 when the connection was reset before a status
 * @param outcome {@code ok}, {@code limited:<KIND>}, {@code too_large:<KIND>}, {@code quota_exhausted},
 *     {@code fault:<name>}, {@code unauthorized}, {@code bad_request}, {@code not_found} or {@code status:<n>}
 * @param retryCount the {@code x-stainless-retry-count} header, when sent
 * @param idempotencyKey the {@code Idempotency-Key} header, when sent
 */
public record Attempt(
        long seq,
        String tenant,
        String method,
        String path,
        int status,
        String outcome,
        Optional<String> retryCount,
        Optional<String> idempotencyKey) {

    public Attempt {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(retryCount, "retryCount");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    }
}
