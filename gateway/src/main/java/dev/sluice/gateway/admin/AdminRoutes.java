package dev.sluice.gateway.admin;

import dev.sluice.gateway.metrics.SluiceMetrics;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.AdminSettings;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;

/**
 * The one place that lists what the admin listener serves. Each group of routes (the admin and
 * partner API, metrics, the dashboard) adds itself here.
 */
final class AdminRoutes {

    private AdminRoutes() {}

    static void install(AdminRouter router, Vertx vertx, AdminSettings settings, SluiceRuntime runtime,
            SluiceMetrics metrics) {
        router.add(HttpMethod.GET, "/admin/health", Access.OPEN,
                x -> x.json(200, AdminExchange.JSON.createObjectNode().put("status", "ok")));
        router.add(HttpMethod.GET, "/admin/whoami", Access.READ, x -> x.json(200, AdminExchange.JSON.createObjectNode()
                .put("token_id", x.principal().tokenId()).put("scope", x.principal().scope().wireName())));
        MetricsRoute.install(router, vertx, settings.metricsAuth(), metrics);
        RolloutRoutes.install(router, runtime);
        WarmupRoutes.install(router, runtime);
    }
}
