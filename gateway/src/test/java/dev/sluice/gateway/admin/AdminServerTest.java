package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The admin listener: its own port, admin tokens only, scopes enforced before any handler runs. */
class AdminServerTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            server: { port: 0 }
            admin:
              port: 0
              max_body_bytes: 1024
              tokens:
                ops: { scope: admin, token: "sla-test-admin" }
                viewer: { scope: read, token: "sla-test-read" }
                reseller: { scope: "partner:acme", token: "sla-test-partner" }
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 100 } } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-client-key" } } } } } } } }
            """, "admin.yaml", v -> null);

    static Vertx vertx;
    static Gateway gateway;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        gateway = Gateway.builder(CONFIG).vertx(vertx).instances(1).start().toCompletionStage().toCompletableFuture()
                .get(20, TimeUnit.SECONDS);
        AdminRouter router = gateway.admin().orElseThrow().router();
        router.add(HttpMethod.POST, "/admin/test/change", Access.CHANGE, x -> x.json(200,
                AdminExchange.JSON.createObjectNode().put("changed_by", x.principal().tokenId())));
        router.add(HttpMethod.GET, "/admin/test/items/{id}", Access.ADMIN, x -> x.json(200,
                AdminExchange.JSON.createObjectNode().put("id", x.param("id"))));
    }

    @AfterAll
    static void stop() throws Exception {
        gateway.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(gateway.admin().orElseThrow().baseUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void itListensOnAPortOfItsOwn() {
        assertThat(gateway.admin().orElseThrow().port()).isNotEqualTo(gateway.port());
    }

    @Test
    void healthNeedsNoToken() throws Exception {
        assertThat(call("GET", "/admin/health", null, null).body()).contains("\"ok\"");
    }

    @Test
    void everyOtherRouteNeedsAnAdminToken() throws Exception {
        HttpResponse<String> none = call("GET", "/admin/whoami", null, null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.body()).contains("invalid_admin_token");
        assertThat(call("GET", "/admin/whoami", "sk-client-key", null).statusCode()).as("a client key is not a token")
                .isEqualTo(401);
        HttpResponse<String> ok = call("GET", "/admin/whoami", "sla-test-partner", null);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).contains("\"token_id\":\"reseller\"").contains("partner:acme").doesNotContain("sla-test");
    }

    @Test
    void aReadTokenChangesNothing() throws Exception {
        HttpResponse<String> r = call("POST", "/admin/test/change", "sla-test-read", "{}");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("scope_forbids").contains("viewer");
        assertThat(call("POST", "/admin/test/change", "sla-test-partner", "{}").statusCode()).isEqualTo(200);
        assertThat(call("POST", "/admin/test/change", "sla-test-admin", "{}").body()).contains("\"changed_by\":\"ops\"");
    }

    @Test
    void adminOnlyRoutesRefusePartners() throws Exception {
        assertThat(call("GET", "/admin/test/items/a%20b", "sla-test-partner", null).statusCode()).isEqualTo(403);
        assertThat(call("GET", "/admin/test/items/a%20b", "sla-test-admin", null).body()).contains("\"id\":\"a b\"");
    }

    @Test
    void unknownRoutesAndMethodsAreNamed() throws Exception {
        assertThat(call("GET", "/admin/nothing", "sla-test-admin", null).statusCode()).isEqualTo(404);
        assertThat(call("DELETE", "/admin/whoami", "sla-test-admin", null).statusCode()).isEqualTo(405);
    }

    @Test
    void bodiesOverTheLimitAre413() throws Exception {
        HttpResponse<String> r = call("POST", "/admin/test/change", "sla-test-admin", "x".repeat(2048));
        assertThat(r.statusCode()).isEqualTo(413);
    }

    @Test
    void noAdminRouteIsOnTheClientPort() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/admin/whoami"))
                .header("authorization", "Bearer sla-test-admin").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(404);
    }
}
