package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard on the admin listener: the page and its assets open and locked down, the state
 * behind a token with the last minute's exact numbers, a partner's view confined to its subtree.
 */
class DashboardRoutesTest {

    static Vertx vertx;
    static MockProviderServer openai;
    static Gateway g;

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        openai = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)));
        g = AdminCalls.start(vertx, config());
    }

    static dev.sluice.runtime.config.SluiceConfig config() {
        return config("");
    }

    /** The dashboard's configuration, {@code extra} added to its deployments. */
    static dev.sluice.runtime.config.SluiceConfig config(String extra) {
        return ConfigLoader.parse("""
                server: { port: 0 }
                admin:
                  port: 0
                  tokens:
                    ops: { scope: admin, token: "sla-dash-admin" }
                    viewer: { scope: read, token: "sla-dash-read" }
                    reseller: { scope: "partner:o2", token: "sla-dash-partner" }
                deployments: { east: { kind: openai, base_url: "%s", limits: { rpm: 600, input_tpm: 100000 } }%s }
                profiles: { p: { deployment: east, model: gpt-4o-mini } }
                prices: { gpt-4o-mini: { input: 1000, output: 1000 } }
                orgs:
                  o:
                    tenants:
                      acme: { limits: { rpm: { amount: 6, burst: 2 } }, teams: { x: { keys: { k: { secret: "sk-dash-acme" } } } } }
                      initech: { teams: { z: { keys: { k3: { secret: "sk-dash-initech" } } } } }
                  o2:
                    tenants:
                      globex: { limits: { daily_cost: 5, monthly_cost: 100 }, teams: { y: { keys: { k2: { secret: "sk-dash-globex" } } } } }
                """.formatted(openai.baseUrl(), extra), "dashboard.yaml", v -> null);
    }

    @AfterAll
    static void stop() throws Exception {
        AdminCalls.stop(g);
        await(openai.close());
        AdminCalls.close(vertx);
    }

    @Test
    void thePageAndItsAssetsNeedNoTokenAndRunOnlyTheirOwnScripts() throws Exception {
        HttpResponse<String> page = AdminCalls.admin(g, "GET", "/admin/dashboard", null, null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
        assertThat(page.headers().firstValue("content-security-policy")).hasValue(DashboardRoutes.POLICY);
        assertThat(page.body()).contains("<script src=\"/admin/dashboard/dashboard.js\"").doesNotContain("<script>");
        for (String asset : new String[] {"dashboard.js", "dashboard.css", "uPlot.iife.min.js", "uPlot.min.css"}) {
            HttpResponse<String> a = AdminCalls.admin(g, "GET", "/admin/dashboard/" + asset, null, null);
            assertThat(a.statusCode()).as(asset).isEqualTo(200);
            assertThat(a.body()).as(asset).isNotEmpty();
        }
        HttpResponse<String> none = AdminCalls.admin(g, "GET", "/admin/dashboard/secrets.txt", null, null);
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(AdminCalls.json(none).path("error").path("code").asText()).isEqualTo("unknown_asset");
    }

    @Test
    void theStateNeedsAToken() throws Exception {
        assertThat(AdminCalls.admin(g, "GET", "/admin/dashboard/state", null, null).statusCode()).isEqualTo(401);
        assertThat(AdminCalls.admin(g, "GET", "/admin/dashboard/state", "sk-dash-acme", null).statusCode())
                .as("a client key is not a token").isEqualTo(401);
    }

    @Test
    void theStateHoldsTheLastMinutesRequestsAndTheDeploymentsBuckets() throws Exception {
        int ok = 0;
        int refused = 0;
        for (int i = 0; i < 4; i++) {
            int s = AdminCalls.chat(g, "sk-dash-acme").statusCode();
            ok += s == 200 ? 1 : 0;
            refused += s == 429 ? 1 : 0;
        }
        assertThat(ok).as("a burst of 2").isEqualTo(2);
        assertThat(refused).isEqualTo(2);
        JsonNode s = awaitRequests(4);

        assertThat(s.path("view").asText()).isEqualTo("all");
        JsonNode acme = find(s.path("tenants"), "tenant", "acme");
        assertThat(acme.path("rpm").asLong()).isEqualTo(4);
        assertThat(acme.path("rejected").asLong()).isEqualTo(2);
        assertThat(acme.path("input_tpm").asLong()).isPositive();
        JsonNode p = find(s.path("profiles"), "profile", "p");
        assertThat(p.path("deployment").asText()).isEqualTo("east");
        assertThat(p.path("rejected").asLong()).isEqualTo(2);
        assertThat(p.path("admitted").asLong()).isEqualTo(2);
        JsonNode top = s.path("bottlenecks").path(0);
        assertThat(top.path("scope").asText()).isEqualTo("tenant:acme");
        assertThat(top.path("limiter").asText()).isEqualTo("rpm");
        assertThat(top.path("rejected").asLong()).isEqualTo(2);
        JsonNode east = find(s.path("deployments"), "deployment", "east");
        assertThat(east.path("provider").asText()).isEqualTo("openai");
        assertThat(east.path("mode").asText()).isEqualTo("off");
        assertThat(east.path("attempts").asLong()).isEqualTo(2);
        assertThat(find(east.path("buckets"), "dimension", "rpm").path("capacity").asLong()).isPositive();
        assertThat(find(s.path("cache_reads"), "deployment", "east").path("input_limit_per_minute").asLong())
                .isEqualTo(100_000);
        assertThat(s.path("retry_after").path("bounds_ms").size()).isEqualTo(8);
    }

    @Test
    void theStateShowsEachRolloutAndWarmupWithItsLatestDecisionsAndAPartnerNeither() throws Exception {
        Vertx ownVertx = Vertx.vertx();
        Gateway own = AdminCalls.start(ownVertx, config(", west: { kind: openai, base_url: \"http://127.0.0.1:1\" }"));
        JsonNode s;
        JsonNode partner;
        try {
            String ops = "sla-dash-admin";
            assertThat(AdminCalls.admin(own, "POST", "/admin/rollouts", ops, "{\"id\":\"move\",\"profile\":\"p\","
                    + "\"to\":\"west\",\"steps\":[10,100],\"interval\":\"1h\"}").statusCode())
                    .isEqualTo(201);
            assertThat(AdminCalls.admin(own, "POST", "/admin/rollouts/move/start", ops, null).statusCode()).isEqualTo(200);
            assertThat(AdminCalls.admin(own, "POST", "/admin/rollouts/move/pause", ops, null).statusCode()).isEqualTo(200);
            assertThat(AdminCalls.admin(own, "POST", "/admin/warmups", ops, "{\"id\":\"nightly\",\"tenant\":\"acme\","
                    + "\"start\":\"02:00\",\"duration\":\"1h\",\"max_growth_per_minute\":{\"rpm\":2}}").statusCode())
                    .isEqualTo(201);
            s = AdminCalls.json(AdminCalls.admin(own, "GET", "/admin/dashboard/state", "sla-dash-read", null));
            partner = AdminCalls.json(AdminCalls.admin(own, "GET", "/admin/dashboard/state", "sla-dash-partner", null));
        } finally {
            AdminCalls.stop(own);
            AdminCalls.close(ownVertx);
        }
        JsonNode move = find(s.path("rollouts"), "rollout", "move");
        assertThat(move.path("status").asText()).isEqualTo("paused");
        assertThat(move.path("percent").asDouble()).isEqualTo(10);
        assertThat(move.path("decisions").findValuesAsText("action")).containsExactly("paused", "started");
        assertThat(move.path("decisions").path(0).path("by").asText()).isEqualTo("ops");
        JsonNode nightly = find(s.path("warmups"), "warmup", "nightly");
        assertThat(nightly.path("tenant").asText()).isEqualTo("acme");
        assertThat(nightly.path("status").asText()).isEqualTo("waiting");
        assertThat(partner.has("rollouts")).isFalse();
        assertThat(partner.has("warmups")).isFalse();
    }

    @Test
    void aPartnerSeesItsOwnTenantsAndNothingShared() throws Exception {
        // A gateway of its own (on a Vert.x of its own, or it would share the first one's ports):
        // the other tests count their requests exactly.
        Vertx ownVertx = Vertx.vertx();
        Gateway own = AdminCalls.start(ownVertx, config());
        JsonNode s;
        try {
            assertThat(AdminCalls.chat(own, "sk-dash-globex").statusCode()).isEqualTo(200);
            assertThat(AdminCalls.chat(own, "sk-dash-initech").statusCode()).isEqualTo(200);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            do {
                s = AdminCalls.json(AdminCalls.admin(own, "GET", "/admin/dashboard/state", "sla-dash-partner", null));
            } while (s.path("tenants").isEmpty() && System.nanoTime() < until);
        } finally {
            AdminCalls.stop(own);
            AdminCalls.close(ownVertx);
        }
        assertThat(s.path("view").asText()).isEqualTo("partner");
        assertThat(s.path("tenants").findValuesAsText("tenant")).containsExactly("globex");
        // Its spend against its caps, in dollars: the answered request cost something at $1,000 per million.
        assertThat(s.path("spend").findValuesAsText("scope")).containsExactly("tenant:globex");
        JsonNode spend = s.path("spend").path(0);
        assertThat(spend.path("today").path("cap_usd").asDouble()).isEqualTo(5.0);
        assertThat(spend.path("month").path("cap_usd").asDouble()).isEqualTo(100.0);
        assertThat(spend.path("today").path("spent_usd").asDouble()).isPositive()
                .isEqualTo(spend.path("month").path("spent_usd").asDouble());
        assertThat(s.has("deployments")).isFalse();
        assertThat(s.has("profiles")).isFalse();
        assertThat(s.has("bottlenecks")).isFalse();
    }

    /** The state once the lifecycle has recorded {@code n} requests (events follow the answers by a moment). */
    static JsonNode awaitRequests(long n) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        JsonNode s;
        do {
            s = AdminCalls.json(AdminCalls.admin(g, "GET", "/admin/dashboard/state", "sla-dash-read", null));
            JsonNode acme = find(s.path("tenants"), "tenant", "acme");
            if (acme != null && acme.path("rpm").asLong() >= n) {
                return s;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() < until);
        return s;
    }

    static JsonNode find(JsonNode array, String field, String value) {
        for (JsonNode n : array) {
            if (n.path(field).asText().equals(value)) {
                return n;
            }
        }
        return null;
    }
}
