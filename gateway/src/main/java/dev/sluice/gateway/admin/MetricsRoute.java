package dev.sluice.gateway.admin;

import dev.sluice.gateway.metrics.SluiceMetrics;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.config.AdminSettings;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import java.util.Optional;

/**
 * {@code GET /metrics}: Prometheus's scrape. Open or behind any admin token, as
 * {@code admin.metrics_auth} says. Behind a token, a partner's is refused: the metrics name every
 * tenant, not only the partner's.
 */
final class MetricsRoute {

    static final String PATH = "/metrics";

    private MetricsRoute() {}

    static void install(AdminRouter router, Vertx vertx, AdminSettings.MetricsAuth auth, SluiceMetrics metrics) {
        Access access = auth == AdminSettings.MetricsAuth.NONE ? Access.OPEN : Access.READ;
        router.add(HttpMethod.GET, PATH, access, x -> {
            if (access == Access.READ && x.principalIfAny().map(p -> p.scope().kind() == AdminScope.Kind.PARTNER).orElse(false)) {
                x.error(403, "scope_forbids", "The metrics cover every tenant; token '" + x.principal().tokenId()
                        + "' (" + x.principal().scope().wireName() + ") may read only its own subtree.",
                        Optional.empty());
                return;
            }
            // The snapshot reads the quota store, which may be Redis: never on the admin event loop.
            vertx.executeBlocking(metrics::scrape, false).onComplete(ar -> {
                if (ar.succeeded()) {
                    x.send(200, SluiceMetrics.CONTENT_TYPE, Buffer.buffer(ar.result()));
                } else {
                    x.error(503, "metrics_unavailable", "The metrics could not be read: "
                            + ar.cause().getClass().getSimpleName() + ".", Optional.empty());
                }
            });
        });
    }
}
