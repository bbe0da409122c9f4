package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.LatencyConfig;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload that swaps a profile's deployment for a new one, through the real gateway against two
 * mock providers: the new deployment serves at once, the request in flight on the removed one
 * finishes there, and every reservation settles.
 */
class LiveDeploymentsTest {

    static final String ADMIN = "sla-live-admin";
    static final String YAML = """
            server: { port: 0 }
            admin: { port: 0, tokens: { ops: { scope: admin, token: "%s" } } }
            deployments:
            %s
            profiles: { p: { deployment: %s, model: gpt-4o-mini } }
            orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-live-k" } } } } } } } }
            """;

    @TempDir
    Path dir;
    Path file;
    Vertx vertx;
    MockProviderServer slow;
    MockProviderServer fast;
    Gateway gateway;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        // The old deployment answers after 1.5 s, so a request is still in flight there when the reload comes.
        slow = MockProviderServer.start(vertx, MockConfig.builder(Flavour.OPENAI)
                .latency(new LatencyConfig(Duration.ofMillis(1_500), 0, 4)).build())
                .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        fast = MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)).toCompletionStage()
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
        file = dir.resolve("sluice.yaml");
        Files.writeString(file, YAML.formatted(ADMIN, "  old: { kind: openai, base_url: \"" + slow.baseUrl()
                + "\", limits: { rpm: 600 } }", "old"));
        gateway = AdminCalls.start(vertx, ConfigLoader.load(file));
    }

    @AfterEach
    void stop() throws Exception {
        AdminCalls.stop(gateway);
        AdminCalls.close(vertx);
    }

    @Test
    void aReloadThatReplacesAProfilesDeploymentServesTheNewOneAtOnceAndLetsTheOldFinish() throws Exception {
        CompletableFuture<HttpResponse<String>> inFlight = AdminCalls.HTTP.sendAsync(HttpRequest.newBuilder(
                        URI.create(gateway.baseUrl() + "/v1/chat/completions"))
                .header("authorization", "Bearer sk-live-k").header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        waitFor(() -> slow.stats().inFlight() == 1);
        assertThat(gateway.runtime().deployments().version("old").orElseThrow().inFlight()).isEqualTo(1);

        Files.writeString(file, YAML.formatted(ADMIN, "  new: { kind: openai, base_url: \"" + fast.baseUrl()
                + "\", limits: { rpm: 600 } }", "new"));
        HttpResponse<String> reload = AdminCalls.admin(gateway, "POST", "/admin/reload", ADMIN, null);

        assertThat(reload.statusCode()).as(reload.body()).isEqualTo(200);
        assertThat(AdminCalls.json(reload).path("needs_restart")).isEmpty();
        assertThat(gateway.runtime().deployments().version("old")).as("routed to no more").isEmpty();
        HttpResponse<String> served = AdminCalls.chat(gateway, "sk-live-k");
        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        assertThat(fast.stats().totalRequests()).as("served by the new deployment").isEqualTo(1);
        assertThat(inFlight.isDone()).as("the old one is still answering").isFalse();

        HttpResponse<String> finished = inFlight.get(20, TimeUnit.SECONDS);
        assertThat(finished.statusCode()).as(finished.body()).isEqualTo(200);
        assertThat(slow.stats().totalRequests()).as("it ran where it was admitted, once").isEqualTo(1);
        assertThat(fast.stats().totalRequests()).isEqualTo(1);
        var counters = gateway.runtime().counters();
        waitFor(() -> counters.answered() == 2 && counters.reservationsOpen() == 0);
        assertThat(counters.reservationsSettled()).isEqualTo(2);
        assertThat(counters.duplicateAnswers()).isZero();
        assertThat(gateway.governor().store().openLeases()).isZero();
    }

    /** Waits, at most 20 s, for {@code condition}. */
    static void waitFor(BooleanSupplier condition) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 20 s").isLessThan(until);
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }
}
