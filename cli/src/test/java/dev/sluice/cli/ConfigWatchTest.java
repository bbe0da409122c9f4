package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.control.Actor;
import dev.sluice.runtime.control.EditRefused;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file watch of {@code sluice serve}: a rewritten file is put in force without a signal or a
 * call, and a bad one is refused whole, with its error, the running configuration kept.
 */
class ConfigWatchTest {

    static final String YAML = """
            server: { port: 0 }
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs: { o: { tenants: { acme: { limits: { rpm: RPM }, teams: { x: { keys: { k: { secret: "sk-watch-k" } } } } } } } }
            """;

    @TempDir
    Path dir;

    @Test
    void aRewrittenFileIsInForceAndABadOneIsRefusedWithItsError() throws Exception {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, YAML.replace("RPM", "100"));
        Vertx vertx = Vertx.vertx();
        Gateway g = Gateway.builder(ConfigLoader.load(file)).vertx(vertx).instances(1).adaptive(false).start()
                .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        LinkedBlockingQueue<String> outcomes = new LinkedBlockingQueue<>();
        ConfigWatch watch = ConfigWatch.start(file, () -> {
            try {
                g.control().reloadFile(Actor.CONFIG);
                outcomes.add("reloaded");
            } catch (EditRefused e) {
                outcomes.add(e.getMessage());
            }
        });
        try {
            Files.writeString(file, YAML.replace("RPM", "40"));
            assertThat(outcomes.poll(20, TimeUnit.SECONDS)).isEqualTo("reloaded");
            assertThat(rpm(g)).isEqualTo(40);

            Files.writeString(file, YAML.replace("RPM", "-5"));
            assertThat(outcomes.poll(20, TimeUnit.SECONDS)).contains("orgs.o.tenants.acme.limits")
                    .contains("nothing was changed");
            assertThat(rpm(g)).isEqualTo(40);
        } finally {
            watch.close();
            g.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
            vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    private static long rpm(Gateway g) {
        return g.governor().config().settings(Scope.of(ScopeLevel.TENANT, "acme")).limits().get(Dimension.REQUESTS)
                .orElseThrow().amount();
    }
}
