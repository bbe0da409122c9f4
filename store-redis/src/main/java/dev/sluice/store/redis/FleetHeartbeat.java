package dev.sluice.store.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps this replica in the fleet's live set ({@code ns:{ns}:replicas}) with a heartbeat every
 * {@code every}, on a thread of its own, so the request path never waits for it. A replica counts
 * as live for three intervals after its last beat: a replica killed without a word leaves the set
 * within that time, and one stopped cleanly leaves it at once ({@link #close}).
 *
 * <p>While Redis cannot answer, the last count stands: an outage is exactly when the fail-open
 * share (1/N of every limit) needs it.
 */
public final class FleetHeartbeat implements AutoCloseable {

    private final SharedControlState shared;
    private final Duration liveFor;
    private final ScheduledExecutorService timer;

    private FleetHeartbeat(SharedControlState shared, Duration every, boolean scheduled) {
        this.shared = Objects.requireNonNull(shared, "shared");
        if (!every.isPositive()) {
            throw new IllegalArgumentException("every: " + every + " (expected: > 0)");
        }
        this.liveFor = every.multipliedBy(3);
        this.timer = scheduled ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-fleet-heartbeat");
            t.setDaemon(true);
            return t;
        }) : null;
    }

    /** Beats now and then every {@code every} until closed. */
    public static FleetHeartbeat start(RedisQuotaStore store, Duration every) {
        FleetHeartbeat h = new FleetHeartbeat(store.sharedControl(), every, true);
        h.beat();
        h.timer.scheduleWithFixedDelay(h::beat, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return h;
    }

    /** A heartbeat that beats only when {@link #beat} is called (tests, the simulator). */
    static FleetHeartbeat manual(RedisQuotaStore store, Duration every) {
        return new FleetHeartbeat(store.sharedControl(), every, false);
    }

    /** One heartbeat; returns the replicas now live, or the last count if Redis did not answer. */
    public int beat() {
        try {
            return shared.heartbeat(liveFor);
        } catch (StoreUnavailableException e) {
            return shared.lastKnownLiveReplicas();
        }
    }

    /** Replicas live at the last heartbeat that Redis answered, this one included; never calls Redis. */
    public int liveReplicas() {
        return shared.lastKnownLiveReplicas();
    }

    /** Stops beating and leaves the live set, so the others' count drops at once. */
    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
        try {
            shared.leave();
        } catch (StoreUnavailableException e) {
            // The entry expires by itself within three intervals.
        }
    }
}
