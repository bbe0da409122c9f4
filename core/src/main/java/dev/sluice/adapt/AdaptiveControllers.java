package dev.sluice.adapt;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.GovernorListener;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.Rejection;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Scope;
import dev.sluice.signal.ProviderSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * One {@link AdaptiveController} per provider deployment of a governor, created on first use, plus
 * the wiring the gateway needs: it is a {@link GovernorListener} that turns queue outcomes into
 * queue pressure for the deployment's controller, and it ticks every controller.
 *
 * <p>Wiring: create it, {@link QuotaGovernor#addListener add it} to the governor, call
 * {@link #controller} for every configured deployment at start-up (so the ramp starts and the
 * guard is installed before the first request), pass every provider answer to {@link #onSignal},
 * and call {@link #tick()} every {@link #TICK_INTERVAL}.
 */
public final class AdaptiveControllers implements GovernorListener {

    /** How often {@link #tick()} should run: modes relax and the ramp climbs in steps of about this. */
    public static final Duration TICK_INTERVAL = Duration.ofSeconds(1);

    private final QuotaGovernor governor;
    private final Function<String, AdaptiveConfig> configs;
    private final long seed;
    private final ConcurrentHashMap<String, AdaptiveController> controllers = new ConcurrentHashMap<>();
    private final List<AdaptiveListener> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param governor the governor whose deployments are controlled
     * @param configs the tuning of each deployment, by deployment id
     * @param seed seeds each controller's random draws (mixed with its deployment id)
     */
    public AdaptiveControllers(QuotaGovernor governor, Function<String, AdaptiveConfig> configs, long seed) {
        this.governor = Objects.requireNonNull(governor, "governor");
        this.configs = Objects.requireNonNull(configs, "configs");
        this.seed = seed;
    }

    /** The controller of {@code deployment}, attached to the governor on first use. */
    public AdaptiveController controller(String deployment) {
        AdaptiveController c = controllers.get(deployment);
        if (c != null) {
            return c;
        }
        return controllers.computeIfAbsent(deployment, d -> {
            AdaptiveController created = AdaptiveController.attach(d, configs.apply(d), governor,
                    new SplittableRandom(seed ^ ((long) d.hashCode() << 32 | (d.length() & 0xffffffffL))));
            for (AdaptiveListener l : listeners) {
                created.addListener(l);
            }
            return created;
        });
    }

    /** The controller of {@code deployment}, if one was created. */
    public Optional<AdaptiveController> find(String deployment) {
        return Optional.ofNullable(controllers.get(deployment));
    }

    /**
     * Drops the controller of {@code deployment}, which the configuration no longer has (or has
     * with other settings): it is ticked and fed no more, and a deployment of that id used again
     * gets a new controller, made from the tuning in force then (its ramp starts over).
     */
    public void remove(String deployment) {
        controllers.remove(deployment);
    }

    /** Passes one provider answer to its deployment's controller. */
    public void onSignal(String deployment, ProviderSignal signal, long latencyNanos) {
        controller(deployment).onSignal(signal, latencyNanos);
    }

    /**
     * Passes one provider answer to a request of class {@code c} (when known) to its deployment's
     * controller ({@link AdaptiveController#onSignal(ProviderSignal, long, Optional)}).
     */
    public void onSignal(String deployment, ProviderSignal signal, long latencyNanos, Optional<TrafficClass> c) {
        controller(deployment).onSignal(signal, latencyNanos, c);
    }

    /** Ticks every controller. */
    public void tick() {
        for (AdaptiveController c : controllers.values()) {
            c.tick();
        }
    }

    /** Adds a listener to every controller, present and future. */
    public void addListener(AdaptiveListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        for (AdaptiveController c : controllers.values()) {
            c.addListener(listener);
        }
    }

    /** Every controller's state, by deployment id. */
    public List<AdaptiveSnapshot> snapshots() {
        List<AdaptiveSnapshot> out = new ArrayList<>();
        for (AdaptiveController c : controllers.values()) {
            out.add(c.snapshot());
        }
        out.sort(Comparator.comparing(AdaptiveSnapshot::deployment));
        return out;
    }

    /**
     * Queue outcomes become queue pressure: an admission reports how much of its budget it waited;
     * a request refused for lack of time (timed out in the queue, or would have waited too long)
     * reports full pressure, unless what bound it belonged to one tenant (that tenant's own quota
     * is not pressure on the deployment).
     */
    @Override
    public void onDecision(AdmissionRequest request, Decision.Final decision) {
        AdaptiveController c = controllers.get(request.path().deployment());
        if (c == null) {
            return;
        }
        if (decision instanceof Decision.Admitted a) {
            long now = governor.clock().nanos();
            long enqueuedAt = now - a.queuedNanos();
            long budget = governor.config().classes().get(request.trafficClass()).maxQueueWait().toNanos();
            if (request.deadlineNanos() != AdmissionRequest.NO_DEADLINE) {
                budget = Math.min(budget, request.deadlineNanos() - enqueuedAt);
            }
            // Only waits for shared capacity are the deployment's pressure (see Decision.Admitted).
            c.onQueueWait(request.trafficClass(), a.sharedWaitNanos(), budget);
        } else if (decision instanceof Decision.Rejected r && outOfTime(r.rejection())) {
            c.onQueueRefused(request.trafficClass());
        }
    }

    private static boolean outOfTime(Rejection r) {
        boolean shared = r.scope().map(Scope::level).map(l -> l.sharedAcrossTenants()).orElse(true);
        if (r.decision() == GatewayDecision.QUEUED_THEN_TIMED_OUT) {
            return shared;
        }
        return r.decision() == GatewayDecision.REJECTED_LOCALLY && r.retryable() && shared
                && !r.code().equals("deployment_cooling_down");
    }
}
