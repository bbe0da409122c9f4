package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/** The {@code /_mock/*} endpoints: read and change limits and faults, read statistics, reset. */
final class ControlEndpoints {

    private ControlEndpoints() {}

    static void handle(MockProviderServer server, HttpServerRequest req, Buffer body) {
        HttpServerResponse resp = req.response().putHeader("content-type", "application/json");
        String path = req.path();
        boolean post = req.method().equals(HttpMethod.POST);
        try {
            JsonNode json = post && body.length() > 0 ? Wire.MAPPER.readTree(body.getBytes()) : Wire.obj();
            ObjectNode out = switch (path) {
                case "/_mock/limits" -> {
                    if (post) {
                        server.setLimits(ControlJson.limits(json, server.limits()));
                    }
                    yield ControlJson.limits(server.limits());
                }
                case "/_mock/faults" -> {
                    if (post) {
                        server.setFaults(ControlJson.faults(json, server.faults()));
                    }
                    yield ControlJson.faults(server.faults());
                }
                case "/_mock/stats" -> ControlJson.stats(server.stats());
                case "/_mock/reset" -> {
                    if (!post) {
                        throw new ControlJson.Invalid("POST /_mock/reset");
                    }
                    server.reset();
                    yield Wire.obj().put("reset", true);
                }
                default -> null;
            };
            if (out == null) {
                resp.setStatusCode(404).end(Wire.buffer(Wire.obj().put("error", "no such control endpoint: " + path)));
            } else {
                resp.end(Wire.buffer(out));
            }
        } catch (ControlJson.Invalid e) {
            resp.setStatusCode(400).end(Wire.buffer(Wire.obj().put("error", e.getMessage())));
        } catch (java.io.IOException e) {
            resp.setStatusCode(400).end(Wire.buffer(Wire.obj().put("error", "the body is not valid JSON")));
        }
    }
}
