package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** {@code /admin/openapi.json} documents exactly the admin routes the router serves, with their access. */
class OpenApiTest {

    @Test
    void theDocumentAndTheRouterAgree() throws Exception {
        var config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-openapi" } } }
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                """, "openapi.yaml", v -> null);
        Vertx vertx = Vertx.vertx();
        Gateway g = AdminCalls.start(vertx, config);
        try {
            HttpResponse<String> r = AdminCalls.admin(g, "GET", "/admin/openapi.json", null, null);
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode doc = AdminCalls.json(r);
            assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");
            Set<String> documented = new TreeSet<>();
            doc.path("paths").properties().forEach(p -> p.getValue().properties().forEach(
                    m -> documented.add(m.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey())));
            Set<String> served = new TreeSet<>();
            g.admin().orElseThrow().router().templates().stream().filter(t -> t.split(" ")[1].startsWith("/admin/"))
                    .forEach(served::add);
            assertThat(documented).isEqualTo(served);
        } finally {
            AdminCalls.stop(g);
            AdminCalls.close(vertx);
        }
    }
}
