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

/** Rollouts created, inspected, commanded and deleted through {@code /admin/rollouts}. */
class RolloutRoutesTest {

    private static final String ADMIN = "sla-rollout-admin";
    private static final String READER = "sla-rollout-reader";

    private Vertx vertx;
    private Gateway g;

    @BeforeEach
    void start() throws Exception {
        var config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "%s" }, viewer: { scope: read, token: "%s" } } }
                deployments:
                  old: { kind: openai, base_url: "http://127.0.0.1:1" }
                  new: { kind: openai, base_url: "http://127.0.0.1:2" }
                profiles:
                  p: { deployment: old, model: gpt-4o-mini }
                  q: { deployment: old, model: gpt-4o-mini }
                rollouts:
                  move: { profile: p, to: new, steps: [10, 50, 100], interval: 1m }
                """.formatted(ADMIN, READER), "rollout-admin.yaml", v -> null);
        vertx = Vertx.vertx();
        g = AdminCalls.start(vertx, config);
    }

    @AfterEach
    void stop() throws Exception {
        AdminCalls.stop(g);
        AdminCalls.close(vertx);
    }

    private JsonNode call(String method, String path, String token, String body, int status) throws Exception {
        HttpResponse<String> r = AdminCalls.admin(g, method, path, token, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return AdminCalls.json(r);
    }

    @Test
    void aRolloutIsListedPendingThenStartedPausedResumedAdvancedAndRolledBackEachByItsOperator() throws Exception {
        JsonNode list = call("GET", "/admin/rollouts", READER, null, 200);
        assertThat(list.path("rollouts").get(0).path("status").asText()).isEqualTo("pending");
        assertThat(list.path("rollouts").get(0).path("percent").asDouble()).isZero();

        JsonNode started = call("POST", "/admin/rollouts/move/start", ADMIN, null, 200);
        assertThat(started.path("decision").path("action").asText()).isEqualTo("started");
        assertThat(started.path("decision").path("by").asText()).isEqualTo("ops");
        assertThat(started.path("rollout").path("percent").asDouble()).isEqualTo(10.0);

        assertThat(call("POST", "/admin/rollouts/move/pause", ADMIN, null, 200).path("rollout").path("status").asText())
                .isEqualTo("paused");
        assertThat(call("POST", "/admin/rollouts/move/resume", ADMIN, null, 200).path("rollout").path("status").asText())
                .isEqualTo("running");
        assertThat(call("POST", "/admin/rollouts/move/advance", ADMIN, null, 200).path("rollout").path("percent")
                .asDouble()).isEqualTo(50.0);
        JsonNode back = call("POST", "/admin/rollouts/move/rollback", ADMIN, "{\"reason\":\"answers look wrong\"}", 200);
        assertThat(back.path("decision").path("reason").asText()).isEqualTo("rolled back by ops: answers look wrong");
        assertThat(back.path("rollout").path("percent").asDouble()).isZero();

        JsonNode one = call("GET", "/admin/rollouts/move", READER, null, 200);
        assertThat(one.path("status").asText()).isEqualTo("rolled_back");
        assertThat(one.path("history")).extracting(h -> h.path("action").asText())
                .containsExactly("started", "paused", "resumed", "advanced", "rolled_back");

        // The gateway's metrics listen to the same decisions.
        var metrics = new dev.sluice.gateway.metrics.Scrape(g.metrics().orElseThrow().scrape());
        assertThat(metrics.value("sluice_rollout_decisions_total", "rollout", "move", "action", "advanced")).hasValue(1);
        assertThat(metrics.sum("sluice_rollout_decisions_total", "rollout", "move")).isEqualTo(5);
        assertThat(metrics.value("sluice_rollout_percent", "rollout", "move")).hasValue(0);
    }

    @Test
    void aCommandThatDoesNotFitTheStatusIs409AndAnUnknownRollout404() throws Exception {
        JsonNode conflict = call("POST", "/admin/rollouts/move/resume", ADMIN, null, 409);
        assertThat(conflict.path("error").path("code").asText()).isEqualTo("rollout_state");
        assertThat(conflict.path("error").path("message").asText()).isEqualTo("rollout move is pending and cannot resume.");

        JsonNode unknown = call("GET", "/admin/rollouts/nope", READER, null, 404);
        assertThat(unknown.path("error").path("code").asText()).isEqualTo("unknown_rollout");
        assertThat(unknown.path("error").path("field").asText()).isEqualTo("rollout");
    }

    @Test
    void aReadTokenMayInspectButNotCommand() throws Exception {
        HttpResponse<String> r = AdminCalls.admin(g, "POST", "/admin/rollouts/move/start", READER, null);

        assertThat(r.statusCode()).isEqualTo(403);
    }

    @Test
    void aRolloutCreatedThroughTheApiIsCommandedLikeTheFilesAndDeleted() throws Exception {
        JsonNode created = call("POST", "/admin/rollouts", ADMIN, """
                {"id":"move-q","profile":"q","to":"new","steps":[5,25,100],"interval":"10m","sticky":"key",
                 "max_growth_per_minute":{"rpm":60},"thresholds":{"provider_429_rate":0.005}}""", 201);
        assertThat(created.path("id").asText()).isEqualTo("move-q");
        assertThat(created.path("from").asText()).isEqualTo("old");
        assertThat(created.path("status").asText()).isEqualTo("pending");
        assertThat(created.path("stages").asInt()).isEqualTo(3);

        assertThat(call("POST", "/admin/rollouts/move-q/start", ADMIN, null, 200).path("rollout").path("percent")
                .asDouble()).isEqualTo(5.0);
        assertThat(call("GET", "/admin/rollouts", READER, null, 200).path("rollouts"))
                .extracting(r -> r.path("id").asText()).containsExactly("move", "move-q");
        var metrics = new dev.sluice.gateway.metrics.Scrape(g.metrics().orElseThrow().scrape());
        assertThat(metrics.value("sluice_rollout_percent", "rollout", "move-q")).hasValue(5);

        JsonNode deleted = call("DELETE", "/admin/rollouts/move-q", ADMIN, null, 200);
        assertThat(deleted.path("deleted").asBoolean()).isTrue();
        call("GET", "/admin/rollouts/move-q", READER, null, 404);
        JsonNode again = call("DELETE", "/admin/rollouts/move-q", ADMIN, null, 404);
        assertThat(again.path("error").path("code").asText()).isEqualTo("unknown_rollout");
        JsonNode audit = call("GET", "/admin/audit?limit=10", READER, null, 200);
        assertThat(audit.toString()).contains("rollout.create", "rollout.delete", "rollout.state");
    }

    @Test
    void aBadDefinitionIs422NamingTheFieldAndATakenProfile409() throws Exception {
        String[][] cases = {
            {"{\"id\":\"r\",\"profile\":\"q\",\"to\":\"new\",\"steps\":[50,10]}", "steps[1]"},
            {"{\"id\":\"r\",\"profile\":\"q\",\"to\":\"gone\",\"steps\":[100]}", "to"},
            {"{\"id\":\"r\",\"profile\":\"q\",\"to\":\"new\",\"steps\":[100],\"thresholds\":{\"error_rate\":\"x\"}}",
                "thresholds.error_rate"},
            {"{\"profile\":\"q\",\"to\":\"new\",\"steps\":[100]}", "id"},
        };
        for (String[] c : cases) {
            JsonNode e = call("POST", "/admin/rollouts", ADMIN, c[0], 422);
            assertThat(e.path("error").path("field").asText()).as(c[0]).isEqualTo(c[1]);
        }
        JsonNode taken = call("POST", "/admin/rollouts", ADMIN,
                "{\"id\":\"r\",\"profile\":\"p\",\"to\":\"new\",\"steps\":[100]}", 409);
        assertThat(taken.path("error").path("code").asText()).isEqualTo("profile_in_rollout");
        assertThat(AdminCalls.admin(g, "POST", "/admin/rollouts", READER,
                "{\"id\":\"r\",\"profile\":\"q\",\"to\":\"new\",\"steps\":[100]}").statusCode()).isEqualTo(403);
    }
}
