package dev.sluice.sim.strategy;

import dev.sluice.adapt.AdaptiveControllers;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.sim.engine.EventLoop;
import dev.sluice.signal.ProviderSignal;

/**
 * Adaptive control and ramp for one replica's governor, wired as the gateway wires them: one
 * controller per deployment whose {@code adaptive.enabled} is true, created at start so the ramp's
 * first stage applies before the first request, told every provider answer, and ticked every
 * {@link AdaptiveControllers#TICK_INTERVAL} of virtual time.
 */
final class AdaptiveWiring {

    private final SluiceConfig config;
    private final AdaptiveControllers controllers;
    private final java.util.Map<String, Long> events = new java.util.TreeMap<>();

    AdaptiveWiring(SluiceConfig config, QuotaGovernor governor, EventLoop loop, long seed) {
        this.config = config;
        this.controllers = new AdaptiveControllers(governor, id -> Adaptive.config(config.deployments().get(id)), seed);
        governor.addListener(controllers);
        controllers.addListener(e -> events.merge(e.getClass().getSimpleName(), 1L, Long::sum));
        for (DeploymentConfig d : config.deployments().values()) {
            if (d.adaptive().enabled()) {
                controllers.controller(d.id());
            }
        }
        long interval = AdaptiveControllers.TICK_INTERVAL.toNanos();
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            controllers.tick();
            loop.after(interval, tick[0]);
        };
        loop.after(interval, tick[0]);
    }

    /** Adaptive events by kind, and each controller's final multiplier (per mille) and ramp stage. */
    void diagnostics(String prefix, java.util.Map<String, Long> out) {
        events.forEach((k, v) -> out.merge("adaptive_events_" + k, v, Long::sum));
        for (var snap : controllers.snapshots()) {
            double m = snap.multipliers().values().stream().mapToDouble(Double::doubleValue).min().orElse(1);
            out.put(prefix + snap.deployment() + "_final_multiplier_permille", Math.round(m * 1000));
            out.put(prefix + snap.deployment() + "_final_ramp_stage", (long) snap.rampStage());
            out.put(prefix + snap.deployment() + "_final_mode_" + snap.mode().name().toLowerCase(java.util.Locale.ROOT),
                    1L);
        }
    }

    void onSignal(String deployment, ProviderSignal signal, long latencyNanos) {
        if (config.deployments().get(deployment).adaptive().enabled()) {
            controllers.onSignal(deployment, signal, latencyNanos);
        }
    }
}
