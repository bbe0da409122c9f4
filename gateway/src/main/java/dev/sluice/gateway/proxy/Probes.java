package dev.sluice.gateway.proxy;

import dev.sluice.gateway.http.HeaderNames;
import dev.sluice.gateway.http.Operation;
import io.vertx.core.http.HttpServerResponse;

/**
 * {@code /healthz} and {@code /readyz}: answered in place, with no key, and never recorded as
 * requests (a probe every second would otherwise fill the ledger).
 */
final class Probes {

    private Probes() {}

    static void answer(GatewayCore core, HttpServerResponse resp, Operation op) {
        boolean ok = op == Operation.HEALTH || core.ready();
        String status = op == Operation.HEALTH ? "ok" : ok ? "ready" : "draining";
        resp.setStatusCode(ok ? 200 : 503).putHeader(HeaderNames.CONTENT_TYPE, "application/json")
                .end(io.vertx.core.buffer.Buffer.buffer(ProxyJson.bytes(ProxyJson.MAPPER.createObjectNode().put("status", status))));
    }
}
