package dev.sluice.runtime.request;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** {@link InvalidRefunds} counted in this process: a window per tenant. Thread-safe. */
final class LocalInvalidRefunds implements InvalidRefunds {

    private static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** One tenant's window: when it began and the refunds given in it. */
    private static final class Window {
        long startNanos;
        int refunded;
    }

    private final Map<String, Window> byTenant = new HashMap<>();

    @Override
    public synchronized boolean refund(String org, String tenant, int perMinute, long nowNanos) {
        Window w = byTenant.computeIfAbsent(org + '/' + tenant, k -> new Window());
        if (w.refunded == 0 || nowNanos - w.startNanos >= WINDOW_NANOS) {
            w.startNanos = nowNanos;
            w.refunded = 0;
        }
        if (w.refunded >= perMinute) {
            return false;
        }
        w.refunded++;
        return true;
    }
}
