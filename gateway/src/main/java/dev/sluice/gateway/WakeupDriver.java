package dev.sluice.gateway;

import dev.sluice.governor.QuotaGovernor;
import dev.sluice.time.NanoClock;
import io.vertx.core.Vertx;

/**
 * Drives the governor's timed work (queued requests whose capacity comes back, leases that expire)
 * from one Vert.x timer, re-armed whenever the governor announces an earlier wake-up. The timer
 * runs on an event loop; the governor never blocks, so neither does this, unless the quota store
 * waits on the network: then the governor's work runs on a worker thread.
 */
final class WakeupDriver {

    private final Vertx vertx;
    private final QuotaGovernor governor;
    private final NanoClock clock;
    private final boolean storeBlocks;
    private long scheduledAt = Long.MAX_VALUE;
    private long timerId = -1;
    private boolean closed;

    WakeupDriver(Vertx vertx, QuotaGovernor governor, NanoClock clock, boolean storeBlocks) {
        this.vertx = vertx;
        this.governor = governor;
        this.clock = clock;
        this.storeBlocks = storeBlocks;
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
        if (storeBlocks) {
            vertx.executeBlocking(() -> {
                governor.onTimer();
                return null;
            }, false).onComplete(done -> request(governor.nextWakeupNanos()));
            return;
        }
        governor.onTimer();
        request(governor.nextWakeupNanos());
    }

    synchronized void close() {
        closed = true;
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
            timerId = -1;
        }
    }
}
