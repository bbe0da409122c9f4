package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A scheduled job's warm-up inspected, paused and resumed through {@code /admin/warmups}. */
class WarmupRoutesTest {

    private static final String ADMIN = "sla-warmup-admin";
    private static final String READER = "sla-warmup-reader";

    private Vertx vertx;
    private Gateway g;

    @BeforeEach
    void start() throws Exception {
        var config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "%s" }, viewer: { scope: read, token: "%s" } } }
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                warmups:
                  nightly: { tenant: jobs, max_growth_per_minute: { rpm: 40 }, initial: { rpm: 12 } }
                orgs: { o: { tenants: { jobs: { limits: { rpm: 240 } } } } }
                """.formatted(ADMIN, READER), "warmup-admin.yaml", v -> null);
        vertx = Vertx.vertx();
        g = AdminCalls.start(vertx, config);
    }

    @AfterEach
    void stop() throws Exception {
        AdminCalls.stop(g);
        AdminCalls.close(vertx);
    }

    private JsonNode call(String method, String path, String token, int status) throws Exception {
        HttpResponse<String> r = AdminCalls.admin(g, method, path, token, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return AdminCalls.json(r);
    }

    @Test
    void aWarmupIsListedWaitingThenPausedAndResumedByItsOperator() throws Exception {
        JsonNode list = call("GET", "/admin/warmups", READER, 200);
        assertThat(list.path("warmups").get(0).path("status").asText()).isEqualTo("waiting");
        assertThat(list.path("warmups").get(0).path("rates").path("rpm").asLong()).as("its limit while waiting")
                .isEqualTo(240);

        JsonNode notWarming = call("POST", "/admin/warmups/nightly/pause", ADMIN, 409);
        assertThat(notWarming.path("error").path("code").asText()).isEqualTo("warmup_state");

        g.runtime().warmups().onArrival("jobs");
        JsonNode paused = call("POST", "/admin/warmups/nightly/pause", ADMIN, 200);
        assertThat(paused.path("decision").path("by").asText()).isEqualTo("ops");
        assertThat(paused.path("warmup").path("status").asText()).isEqualTo("paused");
        assertThat(paused.path("warmup").path("rates").path("rpm").asLong()).isEqualTo(12);
        assertThat(call("POST", "/admin/warmups/nightly/resume", ADMIN, 200).path("warmup").path("status").asText())
                .isEqualTo("warming");
        assertThat(call("GET", "/admin/warmups/nightly", READER, 200).path("history"))
                .extracting(h -> h.path("action").asText()).containsExactly("started", "paused", "resumed");

        assertThat(call("GET", "/admin/warmups/nope", READER, 404).path("error").path("code").asText())
                .isEqualTo("unknown_warmup");
        assertThat(AdminCalls.admin(g, "POST", "/admin/warmups/nightly/pause", READER, null).statusCode()).isEqualTo(403);
    }
}
