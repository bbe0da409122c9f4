package dev.sluice.gateway.admin;

import dev.sluice.gateway.dashboard.DashboardState;
import dev.sluice.gateway.dashboard.LastMinute;
import dev.sluice.runtime.control.Actor;
import dev.sluice.runtime.control.ControlPlane;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * The live dashboard on the admin listener: the page and its static assets (open: they hold no
 * data, only code; the page asks for the token and sends it as {@code Authorization} with every
 * fetch, so it never appears in a URL that reaches a log) and {@code GET /admin/dashboard/state}
 * (any token; a partner sees its own subtree), the JSON the page draws. Everything is served from
 * the jar: the page, its script and style, and uPlot from its WebJar. No network at run time.
 */
final class DashboardRoutes {

    static final String PAGE = "/admin/dashboard";
    /** Where the uPlot WebJar keeps its build; the version is the pom's {@code uplot.version}. */
    static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";
    /**
     * The page runs only its own files: no inline script, no other origin, never framed. Data is
     * shown with textContent, and this is the second line of defence.
     */
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private record Asset(String contentType, Buffer bytes) {}

    private DashboardRoutes() {}

    static void install(AdminRouter router, Vertx vertx, ControlPlane control, LastMinute lastMinute) {
        Asset page = asset("text/html; charset=utf-8", "dev/sluice/gateway/dashboard/index.html");
        Map<String, Asset> assets = Map.of(
                "dashboard.js", asset("text/javascript; charset=utf-8", "dev/sluice/gateway/dashboard/dashboard.js"),
                "dashboard.css", asset("text/css; charset=utf-8", "dev/sluice/gateway/dashboard/dashboard.css"),
                "uPlot.iife.min.js", asset("text/javascript; charset=utf-8", UPLOT + "uPlot.iife.min.js"),
                "uPlot.min.css", asset("text/css; charset=utf-8", UPLOT + "uPlot.min.css"));
        // Before the assets' template, which would match it too: the first route that matches answers.
        router.add(HttpMethod.GET, PAGE + "/state", Access.READ, x -> {
            Actor actor = new Actor(x.principal().tokenId(), x.principal().scope(), x.principal().oversubscription());
            // The governor's snapshot reads the store, which may be Redis: never on the admin event loop.
            vertx.executeBlocking(() -> DashboardState.of(control, lastMinute, actor), false).onComplete(ar -> {
                if (ar.succeeded()) {
                    x.json(200, ar.result());
                } else {
                    x.error(503, "state_unavailable", "The dashboard's state could not be read: "
                            + ar.cause().getClass().getSimpleName() + ".", Optional.empty());
                }
            });
        });
        router.add(HttpMethod.GET, PAGE, Access.OPEN, x -> serve(x, page));
        router.add(HttpMethod.GET, PAGE + "/{asset}", Access.OPEN, x -> {
            Asset a = assets.get(x.param("asset"));
            if (a == null) {
                x.error(404, "unknown_asset", "The dashboard has no file " + x.param("asset") + " (expected: one of "
                        + new java.util.TreeSet<>(assets.keySet()) + ").", Optional.empty());
                return;
            }
            serve(x, a);
        });
    }

    private static void serve(AdminExchange x, Asset a) {
        x.request().response().putHeader("content-security-policy", POLICY).putHeader("x-content-type-options", "nosniff")
                .putHeader("referrer-policy", "no-referrer").putHeader("x-frame-options", "DENY");
        x.send(200, a.contentType(), a.bytes());
    }

    private static Asset asset(String contentType, String resource) {
        try (InputStream in = DashboardRoutes.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path (expected: in the gateway's jar"
                        + " or the uPlot WebJar)");
            }
            return new Asset(contentType, Buffer.buffer(in.readAllBytes()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
