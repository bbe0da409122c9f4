package dev.sluice.runtime.request;

/**
 * How many requests refused as invalid a tenant is refunded the request itself for, on a provider
 * that does not count them ({@link dev.sluice.runtime.config.DeploymentKind#countsInvalidRequests()}):
 * {@code server.invalid_refunds_per_minute} a minute, in windows of one minute from the first
 * refund of the window. Without a bound a client could send invalid requests to such a provider
 * without limit, since only concurrency would apply; beyond it an invalid request keeps its
 * request charged (its tokens and cost are still given back).
 *
 * <p>{@link #local()} counts in this process (a fleet of N replicas on it would refund N times the
 * allowance); the Redis store's counts for the whole fleet. Asked only for a refusal as invalid,
 * off the common path, and on a store call's thread (it may wait on the network).
 */
public interface InvalidRefunds {

    /**
     * Whether {@code tenant} (of {@code org}) is refunded the request of one more invalid refusal
     * at {@code nowNanos} (the runtime's clock; a shared implementation may keep its own time);
     * a refund given is counted.
     *
     * @param perMinute the tenant's allowance a minute; 0 refunds none
     */
    boolean refund(String org, String tenant, int perMinute, long nowNanos);

    /** An allowance counted in this process alone. Thread-safe. */
    static InvalidRefunds local() {
        return new LocalInvalidRefunds();
    }
}
