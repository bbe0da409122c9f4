package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
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
        Gateway g = Gateway.builder(config).vertx(vertx).instances(1).adaptive(false).start().toCompletionStage()
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(g.admin().orElseThrow().baseUrl() + "/admin/openapi.json")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode doc = new ObjectMapper().readTree(r.body());
            assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");
            Set<String> documented = new TreeSet<>();
            doc.path("paths").properties().forEach(p -> p.getValue().properties().forEach(
                    m -> documented.add(m.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey())));
            Set<String> served = new TreeSet<>();
            g.admin().orElseThrow().router().templates().stream().filter(t -> t.split(" ")[1].startsWith("/admin/"))
                    .forEach(served::add);
            assertThat(documented).isEqualTo(served);
        } finally {
            g.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
            vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }
}
