package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /admin/reload}: the file read again, validated first, applied whole or not at all. */
class ReloadTest {

    static final String YAML = """
            server: { port: 0 }
            admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-reload-admin" }, v: { scope: read, token: "sla-reload-read" } } }
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 100 } } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs: { o: { tenants: { acme: { weight: WEIGHT, teams: { x: { keys: { k: { secret: "sk-reload-k" } } } } } } } }
            """;

    @TempDir
    Path dir;
    Path file;
    Vertx vertx;
    Gateway gateway;

    @BeforeEach
    void start() throws Exception {
        file = dir.resolve("sluice.yaml");
        Files.writeString(file, YAML.replace("WEIGHT", "1"));
        vertx = Vertx.vertx();
        gateway = AdminCalls.start(vertx, ConfigLoader.load(file));
    }

    @AfterEach
    void stop() throws Exception {
        AdminCalls.stop(gateway);
        AdminCalls.close(vertx);
    }

    HttpResponse<String> reload(String token) throws Exception {
        return AdminCalls.admin(gateway, "POST", "/admin/reload", token, null);
    }

    double weight() {
        return gateway.governor().config().settings(Scope.of(ScopeLevel.TENANT, "acme")).weight();
    }

    @Test
    void aValidFileIsPutInForceAtOnce() throws Exception {
        Files.writeString(file, YAML.replace("WEIGHT", "5").replace("rpm: 100", "rpm: 60"));
        HttpResponse<String> r = reload("sla-reload-admin");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(weight()).isEqualTo(5.0);
        assertThat(gateway.governor().config().settings(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "d")).limits()
                .get(Dimension.REQUESTS).orElseThrow().amount()).isEqualTo(60);
    }

    @Test
    void anInvalidFileChangesNothingAndTheErrorNamesTheField() throws Exception {
        Files.writeString(file, YAML.replace("WEIGHT", "0"));
        HttpResponse<String> r = reload("sla-reload-admin");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(AdminCalls.json(r).path("error").path("field").asText())
                .isEqualTo("orgs.o.tenants.acme.weight");
        assertThat(weight()).isEqualTo(1.0);
    }

    @Test
    void aNewDeploymentIsPutInForce() throws Exception {
        Files.writeString(file, YAML.replace("WEIGHT", "3").replace("limits: { rpm: 100 } } }",
                "limits: { rpm: 100 } }, e: { kind: openai, base_url: \"http://127.0.0.1:2\", limits: { rpm: 50 } } }"));
        HttpResponse<String> r = reload("sla-reload-admin");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(weight()).isEqualTo(3.0);
        assertThat(gateway.runtime().config().deployments()).containsKeys("d", "e");
        assertThat(gateway.governor().config().settings(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "e")).limits()
                .get(Dimension.REQUESTS).orElseThrow().amount()).isEqualTo(50);
        assertThat(AdminCalls.json(r).path("needs_restart")).isEmpty();
    }

    @Test
    void settingsReadOnlyAtStartAreKeptAsRunningAndNamedAsNeedingARestart() throws Exception {
        Files.writeString(file, YAML.replace("WEIGHT", "2").replace("server: { port: 0 }",
                "server: { port: 0, upstream_timeout: 5s }").replace("127.0.0.1:1", "127.0.0.1:3"));

        HttpResponse<String> r = reload("sla-reload-admin");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(weight()).as("the rest is in force").isEqualTo(2.0);
        assertThat(AdminCalls.json(r).path("needs_restart")).extracting(com.fasterxml.jackson.databind.JsonNode::asText)
                .containsExactly("server.upstream_timeout");
        assertThat(gateway.runtime().config().deployments().get("d").baseUrl().toString())
                .as("a deployment's connection is put in force").isEqualTo("http://127.0.0.1:3");
        assertThat(gateway.runtime().config().server().upstreamTimeout()).isNotEqualTo(java.time.Duration.ofSeconds(5));
    }

    @Test
    void aProfilesRoutingInTheFileIsPutInForce() throws Exception {
        Files.writeString(file, YAML.replace("WEIGHT", "1").replace("profiles: { p: { deployment: d, model: gpt-4o-mini } }",
                "profiles: { p: { deployment: d, model: gpt-4o-mini, fallback: { classes: [critical], max_cost_ratio: 2 } } }"));

        HttpResponse<String> r = reload("sla-reload-admin");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        var fallback = gateway.runtime().config().profiles().get("p").fallback();
        assertThat(fallback.maxCostRatio()).isEqualTo(2.0);
        assertThat(fallback.classes()).containsExactly(dev.sluice.governor.TrafficClass.CRITICAL);
        assertThat(AdminCalls.json(r).path("needs_restart")).isEmpty();
    }

    @Test
    void aReloadPutsTheFilesAdminTokensInForce() throws Exception {
        Files.writeString(file, YAML.replace("WEIGHT", "1").replace("v: { scope: read, token: \"sla-reload-read\" }",
                "w: { scope: read, token: \"sla-reload-read-2\" }"));
        assertThat(reload("sla-reload-admin").statusCode()).isEqualTo(200);
        assertThat(AdminCalls.admin(gateway, "GET", "/admin/orgs", "sla-reload-read-2", null).statusCode()).isEqualTo(200);
        assertThat(AdminCalls.admin(gateway, "GET", "/admin/orgs", "sla-reload-read", null).statusCode()).isEqualTo(401);
    }

    @Test
    void onlyAnAdminTokenReloads() throws Exception {
        assertThat(reload("sla-reload-read").statusCode()).isEqualTo(403);
    }
}
