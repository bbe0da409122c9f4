package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET} and {@code PATCH /admin/profiles/{id}} through real HTTP: a profile whose only
 * deployment is cut is moved onto a mock provider, and the client port serves it at once.
 */
class ProfileAdminTest {

    static final String ADMIN = "sla-prof-admin";
    static final String READ = "sla-prof-read";
    static Vertx vertx;
    static MockProviderServer mock;
    static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        mock = MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)).toCompletionStage()
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
        gateway = AdminCalls.start(vertx, ConfigLoader.parse("""
                server: { port: 0 }
                admin:
                  port: 0
                  tokens:
                    ops: { scope: admin, token: "%s" }
                    viewer: { scope: read, token: "%s" }
                deployments:
                  cut: { kind: openai, base_url: "http://127.0.0.1:1" }
                  up: { kind: openai, base_url: "%s" }
                profiles: { p: { deployment: cut, model: gpt-4o-mini } }
                orgs:
                  o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-prof-k" } } } } } } }
                """.formatted(ADMIN, READ, mock.baseUrl()), "prof.yaml", v -> null));
    }

    @AfterAll
    static void stop() throws Exception {
        AdminCalls.stop(gateway);
        AdminCalls.close(vertx); // the mock provider with it
    }

    @Test
    void aPatchedProfileIsServedOnItsNewDeploymentsAtOnce() throws Exception {
        assertThat(AdminCalls.chat(gateway, "sk-prof-k").statusCode()).as("its only deployment is cut").isEqualTo(502);

        HttpResponse<String> r = AdminCalls.admin(gateway, "PATCH", "/admin/profiles/p", ADMIN,
                "{\"deployments\":[\"up\",\"cut\"],\"fallback\":{\"max_cost_ratio\":1.5}}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode p = AdminCalls.json(r);
        assertThat(p.path("deployments").findValuesAsText("deployment")).containsExactly("up", "cut");
        assertThat(p.path("fallback").path("max_cost_ratio").asDouble()).isEqualTo(1.5);
        HttpResponse<String> chat = AdminCalls.chat(gateway, "sk-prof-k");
        assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
        assertThat(chat.headers().firstValue("x-sluice-deployment")).contains("up");
        JsonNode shown = AdminCalls.json(AdminCalls.admin(gateway, "GET", "/admin/profiles/p", READ, null));
        assertThat(shown.path("deployments").findValuesAsText("deployment")).containsExactly("up", "cut");
        assertThat(AdminCalls.admin(gateway, "GET", "/admin/audit?limit=1", READ, null).body()).contains("profile.update");

        HttpResponse<String> cleared = AdminCalls.admin(gateway, "PATCH", "/admin/profiles/p", ADMIN,
                "{\"fallback\":{\"max_cost_ratio\":null}}");
        assertThat(cleared.statusCode()).as(cleared.body()).isEqualTo(200);
        assertThat(AdminCalls.json(cleared).path("fallback").has("max_cost_ratio")).as("no bound").isFalse();
        assertThat(gateway.runtime().config().profiles().get("p").fallback().maxCostRatio())
                .isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void aBadDefinitionIs422WithTheFieldPathAndChangesNothing() throws Exception {
        String before = AdminCalls.admin(gateway, "GET", "/admin/profiles/p", READ, null).body();

        HttpResponse<String> r = AdminCalls.admin(gateway, "PATCH", "/admin/profiles/p", ADMIN, "{\"deployments\":[\"up\",\"nowhere\"]}");

        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(AdminCalls.json(r).path("error").path("field").asText()).isEqualTo("deployments[1]");
        assertThat(AdminCalls.admin(gateway, "GET", "/admin/profiles/p", READ, null).body()).isEqualTo(before);
        assertThat(AdminCalls.admin(gateway, "PATCH", "/admin/profiles/p", ADMIN, "{\"fallback\":{\"classes\":\"batch\"}}").statusCode())
                .isEqualTo(422);
    }

    @Test
    void onlyAdminsChangeAProfileAndAnUnknownOneIs404() throws Exception {
        assertThat(AdminCalls.admin(gateway, "PATCH", "/admin/profiles/p", READ, "{\"deployments\":[\"up\"]}").statusCode()).isEqualTo(403);
        assertThat(AdminCalls.admin(gateway, "PATCH", "/admin/profiles/q", ADMIN, "{\"deployments\":[\"up\"]}").statusCode()).isEqualTo(404);
        assertThat(AdminCalls.admin(gateway, "GET", "/admin/profiles/q", READ, null).statusCode()).isEqualTo(404);
    }

    @Test
    void aProfileMadeThroughTheApiServesAKeyGivenItAndIsDeletedOnceNoKeyUsesIt() throws Exception {
        HttpResponse<String> made = AdminCalls.admin(gateway, "POST", "/admin/profiles", ADMIN,
                "{\"id\":\"fresh\",\"model\":\"gpt-4o-mini\",\"deployments\":[\"up\",\"cut\"]}");
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        assertThat(AdminCalls.json(made).path("deployments").findValuesAsText("deployment")).containsExactly("up", "cut");
        assertThat(AdminCalls.admin(gateway, "PATCH", "/admin/keys/k", ADMIN, "{\"profiles\":[\"p\",\"fresh\"]}")
                .statusCode()).isEqualTo(200);

        HttpResponse<String> chat = AdminCalls.post(gateway, "/v1/chat/completions", "sk-prof-k",
                "{\"model\":\"fresh\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
        assertThat(chat.headers().firstValue("x-sluice-deployment")).contains("up");

        HttpResponse<String> inUse = AdminCalls.admin(gateway, "DELETE", "/admin/profiles/fresh", ADMIN, null);
        assertThat(inUse.statusCode()).isEqualTo(409);
        assertThat(inUse.body()).contains("profile_in_use").contains("key k");
        assertThat(AdminCalls.admin(gateway, "PATCH", "/admin/keys/k", ADMIN, "{\"profiles\":[\"p\"]}").statusCode())
                .isEqualTo(200);
        assertThat(AdminCalls.admin(gateway, "DELETE", "/admin/profiles/fresh", ADMIN, null).statusCode()).isEqualTo(200);
        assertThat(AdminCalls.admin(gateway, "GET", "/admin/profiles/fresh", READ, null).statusCode()).isEqualTo(404);
        HttpResponse<String> bad = AdminCalls.admin(gateway, "POST", "/admin/profiles", ADMIN,
                "{\"id\":\"worse\",\"model\":\"m\",\"deployments\":[{\"deployment\":\"up\",\"weight\":\"x\"}]}");
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(AdminCalls.json(bad).path("error").path("field").asText()).isEqualTo("deployments[0].weight");
    }
}
