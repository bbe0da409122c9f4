package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code GET /admin/deployments/{id}} on a deployment under adaptive control shows that control's state. */
class DeploymentAdaptiveViewTest {

    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            server: { port: 0 }
            admin: { port: 0, tokens: { viewer: { scope: read, token: "sla-view-read" } } }
            deployments:
              d: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 100, tpm: 100000 }, adaptive: { enabled: true } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs: { o: { tenants: { t: { teams: { x: { keys: { k: { secret: "sk-view-k" } } } } } } } }
            """, "view.yaml", v -> null);

    static Vertx vertx;
    static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        gateway = Gateway.builder(CONFIG).vertx(vertx).instances(1).start()
                .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        AdminCalls.stop(gateway);
        AdminCalls.close(vertx);
    }

    @Test
    void itsModeMultipliersAndTheClimbsHalvingsAreShown() throws Exception {
        JsonNode adaptive = AdminCalls.JSON.readTree(AdminCalls.admin(gateway, "GET", "/admin/deployments/d",
                "sla-view-read", null).body()).path("adaptive");
        assertThat(adaptive.path("mode").asText()).as(adaptive.toString()).isEqualTo("normal");
        assertThat(adaptive.path("multipliers").path("rpm").asDouble()).isEqualTo(1.0);
        // Why a deployment recovers slowly after refusals: how often its climb by clean time is halved (none yet).
        assertThat(adaptive.path("climb_slowdowns").isInt()).as(adaptive.toString()).isTrue();
        assertThat(adaptive.path("climb_slowdowns").asInt()).isZero();
    }
}
