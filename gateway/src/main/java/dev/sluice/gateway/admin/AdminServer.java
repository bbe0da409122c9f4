package dev.sluice.gateway.admin;

import dev.sluice.gateway.dashboard.LastMinute;
import dev.sluice.gateway.metrics.SluiceMetrics;
import dev.sluice.runtime.config.AdminSettings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.runtime.control.ControlPlane;
import java.util.Objects;
import java.util.Optional;

/**
 * The admin listener: its own port (loopback by default), never the client listener. One event
 * loop is plenty for the operations plane; nothing here is on a client request's way.
 */
public final class AdminServer {

    private final Vertx vertx;
    private final AdminSettings settings;
    private final AdminRouter router;
    private HttpServer server;

    /**
     * @param control where changes go (the runtime's, with its journal)
     * @param usage the ledger's queries, for {@code /admin/usage}; empty when the ledger is off
     * @param metrics what {@code /metrics} serves
     * @param lastMinute the last minute of requests, for the dashboard's rates
     * @param recent the requests held in memory, for {@code /admin/requests/recent} and {@code /admin/explain}
     * @param alerts the gateway's alert rules, for {@code /admin/alerts}
     */
    public AdminServer(Vertx vertx, AdminSettings settings, ControlPlane control, Optional<LedgerQueries> usage,
            SluiceMetrics metrics, LastMinute lastMinute, dev.sluice.runtime.explain.RecentRequests recent,
            dev.sluice.runtime.alert.AlertRules alerts) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.router = new AdminRouter(new AdminAuth(() -> control.runtime().config().admin().orElse(settings)),
                settings.maxBodyBytes(),
                new AdminRateLimit(settings.maxRequestsPerMinute(), System::nanoTime));
        AdminRoutes.install(router, vertx, settings, control.runtime(), metrics);
        DashboardRoutes.install(router, vertx, control, Objects.requireNonNull(lastMinute, "lastMinute"));
        ManagementRoutes.install(router, vertx, control, usage);
        RequestRoutes.install(router, vertx, control, recent, usage);
        AlertRoutes.install(router, alerts);
    }

    /** The routes, for documentation checks. */
    public AdminRouter router() {
        return router;
    }

    public Future<AdminServer> start() {
        HttpServerOptions options = new HttpServerOptions().setHost(settings.host()).setPort(settings.port())
                .setCompressionSupported(false).setMaxHeaderSize(16 * 1024)
                // HTTP/1.1 only, as on the client port: the JDK client's h2c upgrade was accepted here and
                // a large answer (the OpenAPI document) then reached it as a malformed HTTP/2 frame.
                .setHttp2ClearTextEnabled(false);
        return vertx.createHttpServer(options).requestHandler(router::handle).listen().map(s -> {
            server = s;
            return this;
        });
    }

    /** The port it listens on. */
    public int port() {
        return server.actualPort();
    }

    /** {@code http://host:port}. */
    public String baseUrl() {
        return "http://" + settings.host() + ":" + port();
    }

    public Future<Void> stop() {
        return server == null ? Future.succeededFuture() : server.close();
    }
}
