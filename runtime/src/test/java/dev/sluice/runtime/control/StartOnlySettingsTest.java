package dev.sluice.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which settings a file changes that a running gateway read only at start: named by their paths, never their values. */
class StartOnlySettingsTest {

    static final String YAML = """
            server: { port: 8080, upstream_timeout: 60s }
            store: { kind: memory }
            ledger: { kind: sqlite, path: usage.db }
            admin: { port: 8081, tokens: { ops: { scope: admin, token: "sla-start-only" } } }
            classes: { batch: { max_queue_wait: 10m } }
            deployments:
              d: { kind: openai, base_url: "http://127.0.0.1:1", api_key_env: START_ONLY_KEY, limits: { rpm: 100 } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs: { o: { tenants: { acme: { weight: 1 } } } }
            """;

    static SluiceConfig parse(String yaml, String key) {
        return ConfigLoader.parse(yaml, "start-only.yaml", Map.of("START_ONLY_KEY", key)::get);
    }

    @Test
    void theSameFileNeedsNoRestart() {
        assertThat(StartOnlySettings.changed(parse(YAML, "sk-1"), parse(YAML, "sk-1"))).isEmpty();
    }

    @Test
    void whatTheReloadPutsInForceIsNotNamed() {
        String live = YAML.replace("rpm: 100", "rpm: 60").replace("weight: 1", "weight: 4")
                .replace("token: \"sla-start-only\"", "token: \"sla-start-only-2\"");

        assertThat(StartOnlySettings.changed(parse(YAML, "sk-1"), parse(live, "sk-1"))).isEmpty();
    }

    @Test
    void everySettingReadAtStartIsNamedByItsPath() {
        String moved = YAML.replace("port: 8080", "port: 9090").replace("60s", "30s").replace("usage.db", "other.db")
                .replace("port: 8081", "port: 9091").replace("10m", "5m").replace("127.0.0.1:1", "127.0.0.1:2")
                .replace("kind: memory", "kind: redis, redis_uri: \"redis://127.0.0.1:6380\"");

        assertThat(StartOnlySettings.changed(parse(YAML, "sk-1"), parse(moved, "sk-1"))).containsExactly(
                "server.port", "server.upstream_timeout", "store.kind", "store.redis_uri", "ledger.path",
                "classes.batch", "admin.port");
    }

    @Test
    void aDeploymentsConnectionAndCredentialAreNotReadOnlyAtStart() {
        String moved = YAML.replace("127.0.0.1:1", "127.0.0.1:2");

        assertThat(StartOnlySettings.changed(parse(YAML, "sk-old-secret"), parse(moved, "sk-new-secret"))).isEmpty();
    }
}
