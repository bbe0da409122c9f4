package dev.sluice.gateway;

import dev.sluice.governor.QuotaGovernor;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.time.NanoClock;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Drives the governor's timed work (queued requests whose capacity comes back, leases that expire)
 * from one Vert.x timer, re-armed whenever the governor announces an earlier wake-up. The timer
 * runs on an event loop; the governor never blocks, so neither does this, unless the quota store
 * waits on the network: then the runtime runs the governor's work on a worker thread.
 *
 * <p>The timer lives on a context of its own, not on the context of whichever listener verticle
 * happened to announce the wake-up: Vert.x cancels a verticle's timers when it is undeployed, and a
 * drain undeploys the listeners one by one while requests queued on the others still wait.
 */
final class WakeupDriver {

    private final Vertx vertx;
    private final ContextInternal timers;
    private final NanoClock clock;
    private final Consumer<Runnable> onTimer;
    private final LongSupplier nextWakeupNanos;
    private long scheduledAt = Long.MAX_VALUE;
    private long timerId = -1;
    private boolean closed;

    WakeupDriver(Vertx vertx, SluiceRuntime runtime) {
        this(vertx, runtime.clock(), runtime::onTimer, runtime.governor()::nextWakeupNanos);
    }

    /**
     * @param onTimer runs the timed work, then the {@code Runnable} it is given
     * @param nextWakeupNanos when the timed work wants to run next, once it has run
     */
    WakeupDriver(Vertx vertx, NanoClock clock, Consumer<Runnable> onTimer, LongSupplier nextWakeupNanos) {
        this.vertx = vertx;
        this.timers = ((VertxInternal) vertx).createEventLoopContext();
        this.clock = clock;
        this.onTimer = onTimer;
        this.nextWakeupNanos = nextWakeupNanos;
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
        timerId = timers.setTimer(delayMillis, this::fire);
    }

    private void fire(long id) {
        synchronized (this) {
            if (id != timerId || closed) {
                return;
            }
            timerId = -1;
            scheduledAt = Long.MAX_VALUE;
        }
        onTimer.accept(() -> request(nextWakeupNanos.getAsLong()));
    }

    synchronized void close() {
        closed = true;
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
            timerId = -1;
        }
    }
}
