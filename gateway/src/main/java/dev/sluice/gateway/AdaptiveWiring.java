package dev.sluice.gateway;

import dev.sluice.adapt.AdaptiveConfig;
import dev.sluice.adapt.AdaptiveControllers;
import dev.sluice.adapt.MultiplierConfig;
import dev.sluice.gateway.config.AdaptiveSettings;
import dev.sluice.gateway.config.DeploymentConfig;
import dev.sluice.gateway.config.RampSettings;
import dev.sluice.gateway.config.SluiceConfig;
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

    private AdaptiveWiring(SluiceConfig config, AdaptiveControllers controllers, Vertx vertx) {
        this.config = config;
        this.controllers = controllers;
        this.vertx = vertx;
        this.timer = vertx.setPeriodic(AdaptiveControllers.TICK_INTERVAL.toMillis(), id -> controllers.tick());
    }

    static AdaptiveWiring attach(SluiceConfig config, QuotaGovernor governor, Vertx vertx, long seed) {
        AdaptiveControllers c = new AdaptiveControllers(governor, id -> adaptiveConfig(config.deployments().get(id)), seed);
        governor.addListener(c);
        for (DeploymentConfig d : config.deployments().values()) {
            if (d.adaptive().enabled()) {
                c.controller(d.id());
            }
        }
        return new AdaptiveWiring(config, c, vertx);
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
            controllers.onSignal(deployment, signal, latencyNanos);
        }
    }

    void close() {
        vertx.cancelTimer(timer);
    }
}
