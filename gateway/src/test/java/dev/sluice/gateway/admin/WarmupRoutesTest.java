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

/** A scheduled job's warm-up created, inspected, paused, resumed and deleted through {@code /admin/warmups}. */
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
                orgs: { o: { tenants: { jobs: { limits: { rpm: 240 } }, evals: { limits: { rpm: 600, tpm: 90000 } } } } }
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
        return call(method, path, token, null, status);
    }

    private JsonNode call(String method, String path, String token, String body, int status) throws Exception {
        HttpResponse<String> r = AdminCalls.admin(g, method, path, token, body);
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

    @Test
    void aWarmupCreatedThroughTheApiWaitsForItsStartAndIsDeletedWhateverItsStatus() throws Exception {
        JsonNode created = call("POST", "/admin/warmups", ADMIN, """
                {"id":"backfill","tenant":"evals","start":"on_first_traffic","duration":"2h",
                 "max_growth_per_minute":{"rpm":60,"tpm":9000}}""", 201);
        assertThat(created.path("id").asText()).isEqualTo("backfill");
        assertThat(created.path("tenant").asText()).isEqualTo("evals");
        assertThat(created.path("status").asText()).isEqualTo("waiting");
        assertThat(call("GET", "/admin/warmups", READER, 200).path("warmups")).extracting(w -> w.path("id").asText())
                .containsExactly("nightly", "backfill");

        g.runtime().warmups().onArrival("evals");
        JsonNode warming = call("GET", "/admin/warmups/backfill", READER, 200);
        assertThat(warming.path("status").asText()).isEqualTo("warming");
        assertThat(warming.path("rates").path("rpm").asLong()).as("one minute's growth by default").isEqualTo(60);
        assertThat(warming.path("rates").path("tpm").asLong()).isEqualTo(9000);

        JsonNode deleted = call("DELETE", "/admin/warmups/backfill", ADMIN, 200);
        assertThat(deleted.path("deleted").asBoolean()).isTrue();
        assertThat(call("GET", "/admin/warmups/backfill", READER, 404).path("error").path("code").asText())
                .isEqualTo("unknown_warmup");
        assertThat(call("DELETE", "/admin/warmups/backfill", ADMIN, 404).path("error").path("code").asText())
                .isEqualTo("unknown_warmup");
        assertThat(call("GET", "/admin/audit", READER, 200).toString()).contains("warmup.create", "warmup.delete");
    }

    @Test
    void aBadDefinitionIs422NamingTheFieldAndATakenIdOrTenantIs409() throws Exception {
        JsonNode bad = call("POST", "/admin/warmups", ADMIN,
                "{\"id\":\"x\",\"tenant\":\"evals\",\"max_growth_per_minute\":{\"rpm\":0}}", 422);
        assertThat(bad.path("error").path("field").asText()).isEqualTo("max_growth_per_minute.rpm");
        JsonNode noLimit = call("POST", "/admin/warmups", ADMIN,
                "{\"id\":\"x\",\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"tpm\":10}}", 422);
        assertThat(noLimit.path("error").path("field").asText()).isEqualTo("max_growth_per_minute.tpm");
        JsonNode noId = call("POST", "/admin/warmups", ADMIN, "{\"tenant\":\"evals\"}", 422);
        assertThat(noId.path("error").path("field").asText()).isEqualTo("id");

        JsonNode taken = call("POST", "/admin/warmups", ADMIN,
                "{\"id\":\"nightly\",\"tenant\":\"evals\",\"max_growth_per_minute\":{\"rpm\":10}}", 409);
        assertThat(taken.path("error").path("code").asText()).isEqualTo("warmup_exists");
        JsonNode tenant = call("POST", "/admin/warmups", ADMIN,
                "{\"id\":\"second\",\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":10}}", 409);
        assertThat(tenant.path("error").path("code").asText()).isEqualTo("tenant_warmed_up");

        assertThat(AdminCalls.admin(g, "POST", "/admin/warmups", READER,
                "{\"id\":\"y\",\"tenant\":\"evals\",\"max_growth_per_minute\":{\"rpm\":10}}").statusCode())
                .isEqualTo(403);
        assertThat(g.runtime().warmups().inspect()).hasSize(1);
    }
}
