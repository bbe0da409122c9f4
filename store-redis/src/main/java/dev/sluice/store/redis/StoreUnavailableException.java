package dev.sluice.store.redis;

/**
 * Redis did not answer in time or could not be reached, so the store cannot decide. Unchecked:
 * it crosses the synchronous {@link dev.sluice.store.QuotaStore} contract. A gateway answers the
 * request with 503 and a short {@code Retry-After}; {@link FailoverQuotaStore} catches it and
 * applies the deployment's failure policy instead.
 */
public final class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public StoreUnavailableException(String message) {
        super(message);
    }
}
