package dev.sluice.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One admin request being answered: the caller, the path's parameters, the body (read whole,
 * within the listener's limit, before the handler runs) and the one answer.
 */
public final class AdminExchange {

    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServerRequest request;
    private final Optional<AdminPrincipal> principal;
    private final Map<String, String> params;
    private final Buffer body;
    private boolean answered;

    AdminExchange(HttpServerRequest request, Optional<AdminPrincipal> principal, Map<String, String> params,
            Buffer body) {
        this.request = Objects.requireNonNull(request, "request");
        this.principal = principal;
        this.params = Map.copyOf(params);
        this.body = body;
    }

    public HttpServerRequest request() {
        return request;
    }

    /** The caller; present on every route but {@link Access#OPEN} ones. */
    public AdminPrincipal principal() {
        return principal.orElseThrow(() -> new IllegalStateException("an open route has no principal"));
    }

    public Optional<AdminPrincipal> principalIfAny() {
        return principal;
    }

    /** A {@code {name}} segment of the route's path. */
    public String param(String name) {
        String v = params.get(name);
        if (v == null) {
            throw new IllegalArgumentException("param: " + name + " (expected: one of " + params.keySet() + ")");
        }
        return v;
    }

    /** A query parameter. */
    public Optional<String> query(String name) {
        return Optional.ofNullable(request.getParam(name));
    }

    /** The body as bytes; empty for none. */
    public byte[] bodyBytes() {
        return body == null ? new byte[0] : body.getBytes();
    }

    /** The body as a JSON object, or empty once a 400 naming the problem has been sent. */
    public Optional<ObjectNode> jsonBody() {
        byte[] raw = bodyBytes();
        try {
            JsonNode n = JSON.readTree(raw);
            if (n != null && n.isObject()) {
                return Optional.of((ObjectNode) n);
            }
        } catch (java.io.IOException e) {
            // answered below
        }
        error(400, "invalid_json", "The request body is not a JSON object.", Optional.empty());
        return Optional.empty();
    }

    /** Answers with {@code json}. */
    public void json(int status, JsonNode json) {
        send(status, "application/json", Buffer.buffer(bytes(json)));
    }

    /** Answers with a body of another type (Prometheus text, a page). */
    public void send(int status, String contentType, Buffer out) {
        if (answered) {
            return;
        }
        answered = true;
        request.response().setStatusCode(status).putHeader("content-type", contentType)
                .putHeader("cache-control", "no-store").end(out);
    }

    /**
     * Answers with an error: {@code {"error": {"type", "code", "message", "field"}}}, the type
     * following the status ({@code invalid_request}, {@code unauthorized}, {@code forbidden} ...).
     *
     * @param field the dotted path of the field at fault, when one is
     */
    public void error(int status, String code, String message, Optional<String> field) {
        ObjectNode e = JSON.createObjectNode();
        ObjectNode inner = e.putObject("error").put("type", type(status)).put("code", code).put("message", message);
        field.ifPresent(f -> inner.put("field", f));
        json(status, e);
    }

    public boolean answered() {
        return answered;
    }

    private static String type(int status) {
        return switch (status) {
            case 400, 413, 422 -> "invalid_request";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 409 -> "conflict";
            case 429 -> "rate_limited";
            default -> status >= 500 ? "server_error" : "error";
        };
    }

    static byte[] bytes(JsonNode n) {
        try {
            return JSON.writeValueAsBytes(n);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tree always serialises", e);
        }
    }
}
