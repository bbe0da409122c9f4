package dev.sluice.gateway;

import dev.sluice.adapt.AdaptiveConfig;
import dev.sluice.adapt.AdaptiveControllers;
import dev.sluice.adapt.MultiplierConfig;
import dev.sluice.runtime.config.AdaptiveSettings;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.RampSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.ramp.RampConfig;
import dev.sluice.signal.ProviderSignal;
import io.vertx.core.Vertx;

/**
 * Adaptive control of every deployment whose {@code adaptive.enabled} is set: one controller per
 * deployment installed as the governor's guard before the first request, fed every provider
 * answer, and ticked by a Vert.x timer.
 */
final class AdaptiveWiring implements ProviderFeedback {

    private final SluiceConfig config;
    private final AdaptiveControllers controllers;
    private final Vertx vertx;
    private final long timer;
    private final boolean storeBlocks;

    private AdaptiveWiring(SluiceConfig config, AdaptiveControllers controllers, Vertx vertx, boolean storeBlocks) {
        this.config = config;
        this.controllers = controllers;
        this.vertx = vertx;
        this.storeBlocks = storeBlocks;
        this.timer = vertx.setPeriodic(AdaptiveControllers.TICK_INTERVAL.toMillis(), id -> offStoreWait(controllers::tick));
    }

    /**
     * Attaches controllers to {@code governor}.
     *
     * @param storeBlocks whether the quota store waits on the network (Redis): a controller's
     *     reaction (a cooldown, a cut, a sync-down) writes to the store, so then signals and ticks
     *     are handled on a worker thread, never on an event loop
     */
    static AdaptiveWiring attach(SluiceConfig config, QuotaGovernor governor, Vertx vertx, long seed, boolean storeBlocks) {
        AdaptiveControllers c = new AdaptiveControllers(governor, id -> adaptiveConfig(config.deployments().get(id)), seed);
        governor.addListener(c);
        for (DeploymentConfig d : config.deployments().values()) {
            if (d.adaptive().enabled()) {
                c.controller(d.id());
            }
        }
        return new AdaptiveWiring(config, c, vertx, storeBlocks);
    }

    /** The controller's tuning from a deployment's {@code adaptive} and {@code ramp} sections. */
    static AdaptiveConfig adaptiveConfig(DeploymentConfig d) {
        AdaptiveSettings a = d.adaptive();
        RampSettings r = d.ramp();
        AdaptiveConfig defaults = AdaptiveConfig.defaults();
        return defaults.withMultiplier(new MultiplierConfig(a.decreaseFactor(), a.increaseStep(), a.floor(),
                        defaults.multiplier().perDimension()))
                .withRamp(RampConfig.defaults().withEnabled(r.enabled()).withStages(r.stages()));
    }

    AdaptiveControllers controllers() {
        return controllers;
    }

    @Override
    public void onResponse(String deployment, ProviderSignal signal) {
        onResponse(deployment, signal, 0);
    }

    @Override
    public void onResponse(String deployment, ProviderSignal signal, long latencyNanos) {
        DeploymentConfig d = config.deployments().get(deployment);
        if (d != null && d.adaptive().enabled()) {
            offStoreWait(() -> controllers.onSignal(deployment, signal, latencyNanos));
        }
    }

    /** Runs {@code work} in place, or on a worker when it may wait on the store. */
    private void offStoreWait(Runnable work) {
        if (storeBlocks) {
            vertx.executeBlocking(() -> {
                work.run();
                return null;
            }, false);
        } else {
            work.run();
        }
    }

    void close() {
        vertx.cancelTimer(timer);
    }
}
