package dev.sluice.gateway.admin;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The admin listener's own rate limit: a token bucket per caller (a token id, or the address of a
 * caller presenting no valid token, so guessing tokens is as slow as using one), refilled
 * continuously at the configured rate per minute, holding a tenth of a minute's worth.
 */
final class AdminRateLimit {

    /** Callers remembered at most; beyond, the fullest buckets are indistinguishable from new ones and are dropped. */
    private static final int MAX_CALLERS = 10_000;

    private final double perNano;
    private final double capacity;
    private final LongSupplier nanos;
    private final Map<String, double[]> buckets = new ConcurrentHashMap<>();

    AdminRateLimit(int perMinute, LongSupplier nanos) {
        this.perNano = perMinute / 60e9;
        this.capacity = Math.max(1, perMinute / 10);
        this.nanos = nanos;
    }

    /** 0 when {@code caller} may go now (and it is counted); otherwise the milliseconds until it may. */
    long take(String caller) {
        long now = nanos.getAsLong();
        if (buckets.size() > MAX_CALLERS) {
            buckets.clear();
        }
        double[] b = buckets.computeIfAbsent(caller, c -> new double[] {capacity, now});
        synchronized (b) {
            b[0] = Math.min(capacity, b[0] + (now - (long) b[1]) * perNano);
            b[1] = now;
            if (b[0] >= 1) {
                b[0] -= 1;
                return 0;
            }
            return Math.max(1, (long) Math.ceil((1 - b[0]) / perNano / 1e6));
        }
    }
}
