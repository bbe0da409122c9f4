package dev.sluice.gateway.admin;

import dev.sluice.runtime.SluiceRuntime;
import io.vertx.core.http.HttpMethod;

/**
 * The one place that lists what the admin listener serves. Each group of routes (the admin and
 * partner API, metrics, the dashboard) adds itself here.
 */
final class AdminRoutes {

    private AdminRoutes() {}

    static void install(AdminRouter router, SluiceRuntime runtime) {
        router.add(HttpMethod.GET, "/admin/health", Access.OPEN,
                x -> x.json(200, AdminExchange.JSON.createObjectNode().put("status", "ok")));
        router.add(HttpMethod.GET, "/admin/whoami", Access.READ, x -> x.json(200, AdminExchange.JSON.createObjectNode()
                .put("token_id", x.principal().tokenId()).put("scope", x.principal().scope().wireName())));
    }
}
