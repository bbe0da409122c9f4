package dev.sluice.sim;

import dev.sluice.adapt.AdaptiveControllers;
import dev.sluice.gateway.config.DeploymentConfig;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.governor.QuotaGovernor;
import io.vertx.core.Vertx;

/** Adaptive control for the real gateway in the end-to-end mode, ticked by a Vert.x timer. */
final class AdaptiveWiringForGateway {

    private AdaptiveWiringForGateway() {}

    static AdaptiveControllers attach(SluiceConfig config, QuotaGovernor governor, Vertx vertx, long seed) {
        AdaptiveControllers c = new AdaptiveControllers(governor,
                id -> dev.sluice.sim.strategy.Adaptive.config(config.deployments().get(id)), seed);
        governor.addListener(c);
        for (DeploymentConfig d : config.deployments().values()) {
            if (d.adaptive().enabled()) {
                c.controller(d.id());
            }
        }
        vertx.setPeriodic(AdaptiveControllers.TICK_INTERVAL.toMillis(), t -> c.tick());
        return c;
    }
}
