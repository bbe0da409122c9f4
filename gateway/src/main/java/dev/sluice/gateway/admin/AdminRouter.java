package dev.sluice.gateway.admin;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The admin listener's routes: a method and a path template ({@code /admin/keys/{id}}) per
 * route, each with the access it asks. Authenticates, reads the body within the limit, then
 * calls the handler; every failure before the handler is answered here, in the admin error
 * shape. Routes are added once, before the listener starts ({@link AdminRoutes}).
 */
public final class AdminRouter {

    private record Route(HttpMethod method, String[] segments, String template, Access access, AdminHandler handler) {}

    private final List<Route> routes = new ArrayList<>();
    private final AdminAuth auth;
    private final long maxBodyBytes;
    private final AdminRateLimit rateLimit;

    AdminRouter(AdminAuth auth, long maxBodyBytes) {
        this(auth, maxBodyBytes, new AdminRateLimit(dev.sluice.runtime.config.AdminSettings.DEFAULT_MAX_REQUESTS_PER_MINUTE,
                System::nanoTime));
    }

    AdminRouter(AdminAuth auth, long maxBodyBytes, AdminRateLimit rateLimit) {
        this.auth = Objects.requireNonNull(auth, "auth");
        this.maxBodyBytes = maxBodyBytes;
        this.rateLimit = Objects.requireNonNull(rateLimit, "rateLimit");
    }

    /** Adds a route; templates are matched segment by segment, {@code {name}} matching any one segment. */
    public AdminRouter add(HttpMethod method, String template, Access access, AdminHandler handler) {
        if (!template.startsWith("/")) {
            throw new IllegalArgumentException("template: " + template + " (expected: starting with /)");
        }
        routes.add(new Route(method, template.substring(1).split("/", -1), template, access, handler));
        return this;
    }

    /** The templates served, with their methods, for documentation checks. */
    public List<String> templates() {
        List<String> out = new ArrayList<>();
        routes.forEach(r -> out.add(r.method().name() + " " + r.template()));
        return out;
    }

    void handle(HttpServerRequest req) {
        String path = req.path();
        String[] parts = path.length() > 1 ? path.substring(1).split("/", -1) : new String[] {""};
        boolean pathKnown = false;
        for (Route r : routes) {
            Optional<Map<String, String>> params = match(r.segments(), parts);
            if (params.isEmpty()) {
                continue;
            }
            pathKnown = true;
            if (!r.method().equals(req.method())) {
                continue;
            }
            serve(req, r, params.get());
            return;
        }
        AdminExchange x = new AdminExchange(req, Optional.empty(), Map.of(), null);
        if (pathKnown) {
            x.error(405, "method_not_allowed", req.method() + " is not served on " + path + ".", Optional.empty());
        } else {
            x.error(404, "unknown_route", "The admin listener serves no " + req.method() + " " + path + ".",
                    Optional.empty());
        }
    }

    private void serve(HttpServerRequest req, Route r, Map<String, String> params) {
        Optional<AdminPrincipal> who = auth.principal(req);
        if (r.access() != Access.OPEN) {
            AdminExchange refused = new AdminExchange(req, who, params, null);
            String caller = who.map(p -> "token:" + p.tokenId())
                    .orElseGet(() -> "address:" + (req.remoteAddress() == null ? "" : req.remoteAddress().hostAddress()));
            long wait = rateLimit.take(caller);
            if (wait > 0) {
                req.response().putHeader("retry-after", Long.toString(Math.ceilDiv(wait, 1000L)))
                        .putHeader("retry-after-ms", Long.toString(wait));
                refused.error(429, "admin_rate_limited", "Too many admin requests from "
                        + who.map(p -> "the token " + p.tokenId()).orElse("this address") + "; retry in " + wait + " ms.",
                        Optional.empty());
                return;
            }
            if (who.isEmpty()) {
                req.response().putHeader("www-authenticate", "Bearer");
                refused.error(401, "invalid_admin_token", "Missing or unknown admin token. Send it as "
                        + "'Authorization: Bearer <token>'; client API keys are not admin tokens.", Optional.empty());
                return;
            }
            var scope = who.get().scope();
            boolean allowed = switch (r.access()) {
                case OPEN, READ -> true;
                case CHANGE -> scope.mayChange();
                case ADMIN -> scope.kind() == dev.sluice.runtime.config.AdminScope.Kind.ADMIN;
            };
            if (!allowed) {
                refused.error(403, "scope_forbids", "The token " + who.get().tokenId() + " (scope "
                        + scope.wireName() + ") may not " + (r.access() == Access.ADMIN ? "use " : "change anything through ")
                        + r.template() + ".", Optional.empty());
                return;
            }
        }
        String length = req.getHeader("content-length");
        if (length != null && parseLong(length) > maxBodyBytes) {
            new AdminExchange(req, who, params, null).error(413, "request_too_large", "Admin request bodies are at most "
                    + maxBodyBytes + " bytes.", Optional.empty());
            req.response().putHeader("connection", "close");
            return;
        }
        Buffer body = Buffer.buffer();
        boolean[] over = {false};
        req.handler(chunk -> {
            if (over[0]) {
                return;
            }
            if (body.length() + chunk.length() > maxBodyBytes) {
                over[0] = true;
                req.response().putHeader("connection", "close");
                new AdminExchange(req, who, params, null).error(413, "request_too_large",
                        "Admin request bodies are at most " + maxBodyBytes + " bytes.", Optional.empty());
                return;
            }
            body.appendBuffer(chunk);
        });
        req.endHandler(v -> {
            if (over[0]) {
                return;
            }
            AdminExchange x = new AdminExchange(req, who, params, body);
            try {
                r.handler().handle(x);
            } catch (RuntimeException e) {
                x.error(500, "internal_error", "The admin request failed: " + e.getClass().getSimpleName() + ".",
                        Optional.empty());
            }
        });
    }

    private static Optional<Map<String, String>> match(String[] template, String[] parts) {
        if (template.length != parts.length) {
            return Optional.empty();
        }
        Map<String, String> params = new HashMap<>();
        for (int i = 0; i < template.length; i++) {
            String t = template[i];
            if (t.startsWith("{") && t.endsWith("}")) {
                if (parts[i].isEmpty()) {
                    return Optional.empty();
                }
                try {
                    params.put(t.substring(1, t.length() - 1), java.net.URLDecoder.decode(parts[i],
                            java.nio.charset.StandardCharsets.UTF_8));
                } catch (IllegalArgumentException badEscape) {
                    return Optional.empty();
                }
            } else if (!t.equals(parts[i])) {
                return Optional.empty();
            }
        }
        return Optional.of(params);
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
