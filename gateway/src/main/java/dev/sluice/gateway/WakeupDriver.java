package dev.sluice.gateway;

import dev.sluice.governor.QuotaGovernor;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.time.NanoClock;
import io.vertx.core.Vertx;

/**
 * Drives the governor's timed work (queued requests whose capacity comes back, leases that expire)
 * from one Vert.x timer, re-armed whenever the governor announces an earlier wake-up. The timer
 * runs on an event loop; the governor never blocks, so neither does this, unless the quota store
 * waits on the network: then the runtime runs the governor's work on a worker thread.
 */
final class WakeupDriver {

    private final Vertx vertx;
    private final SluiceRuntime runtime;
    private final QuotaGovernor governor;
    private final NanoClock clock;
    private long scheduledAt = Long.MAX_VALUE;
    private long timerId = -1;
    private boolean closed;

    WakeupDriver(Vertx vertx, SluiceRuntime runtime) {
        this.vertx = vertx;
        this.runtime = runtime;
        this.governor = runtime.governor();
        this.clock = runtime.clock();
    }

    /** The governor wants {@link QuotaGovernor#onTimer()} at {@code atNanos} on its clock. */
    synchronized void request(long atNanos) {
        if (closed || atNanos == Long.MAX_VALUE || atNanos >= scheduledAt) {
            return;
        }
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
        }
        scheduledAt = atNanos;
        long delayMillis = Math.max(1, (atNanos - clock.nanos() + 999_999) / 1_000_000);
        timerId = vertx.setTimer(delayMillis, this::fire);
    }

    private void fire(long id) {
        synchronized (this) {
            if (id != timerId || closed) {
                return;
            }
            timerId = -1;
            scheduledAt = Long.MAX_VALUE;
        }
        runtime.onTimer(() -> request(governor.nextWakeupNanos()));
    }

    synchronized void close() {
        closed = true;
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
            timerId = -1;
        }
    }
}
