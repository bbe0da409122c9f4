package dev.sluice.runtime.request;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How many requests refused as invalid a tenant is refunded the request itself for, on a provider
 * that does not count them ({@link dev.sluice.runtime.config.DeploymentKind#countsInvalidRequests()}):
 * {@value #PER_MINUTE} a minute, in windows of one minute from the first refund of the window.
 * Without a bound a client could send invalid requests to such a provider without limit, since
 * only concurrency would apply; beyond it an invalid request keeps its request charged (its tokens
 * and cost are still given back). Per gateway process: a fleet of N replicas refunds at most N
 * times the allowance. Thread-safe; the time is the caller's (the runtime's injected clock).
 */
public final class InvalidRefunds {

    /** Refunds of the request per tenant per minute. */
    public static final int PER_MINUTE = 10;

    private static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** One tenant's window: when it began and the refunds given in it. */
    private static final class Window {
        long startNanos;
        int refunded;
    }

    private final Map<String, Window> byTenant = new HashMap<>();

    /**
     * Whether {@code tenant} (its org and name) is refunded the request of one more invalid
     * refusal at {@code nowNanos}; a refund given is counted.
     */
    public synchronized boolean refund(String org, String tenant, long nowNanos) {
        Window w = byTenant.computeIfAbsent(org + '/' + tenant, k -> new Window());
        if (w.refunded == 0 || nowNanos - w.startNanos >= WINDOW_NANOS) {
            w.startNanos = nowNanos;
            w.refunded = 0;
        }
        if (w.refunded >= PER_MINUTE) {
            return false;
        }
        w.refunded++;
        return true;
    }
}
