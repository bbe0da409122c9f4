package dev.sluice.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class KeyRingTest {

    static final String YAML = """
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: m } }
            orgs:
              o:
                tenants:
                  t:
                    teams:
                      x:
                        keys:
                          literal: { secret: "sk-one" }
                          hashed: { key_sha256: "%s" }
                          from-env: { secret_env: CLIENT_KEY }
                          unset: { secret_env: NOT_SET }
            """.formatted(HexFormat.of().formatHex(ConfigLoader.sha256("sk-two")));

    final SluiceConfig config = ConfigLoader.parse(YAML, "t.yaml", v -> v.equals("CLIENT_KEY") ? "sk-three" : null);
    final KeyRing ring = KeyRing.of(config);

    @Test
    void resolvesEverySecretSourceToItsKey() {
        assertThat(ring.resolve("sk-one").orElseThrow().id()).isEqualTo("literal");
        assertThat(ring.resolve("sk-two").orElseThrow().id()).isEqualTo("hashed");
        assertThat(ring.resolve("sk-three").orElseThrow().id()).isEqualTo("from-env");
        assertThat(ring.size()).isEqualTo(3);
    }

    @Test
    void unknownEmptyAndNullKeysResolveToNothing() {
        assertThat(ring.resolve("sk-four")).isEmpty();
        assertThat(ring.resolve("")).isEmpty();
        assertThat(ring.resolve(null)).isEmpty();
    }

    @Test
    void aReusedDigestHashesEveryKeyAfreshOnEveryThread() throws Exception {
        String abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assertThat(HexFormat.of().formatHex(ConfigLoader.sha256("abc"))).isEqualTo(abc);
        assertThat(HexFormat.of().formatHex(ConfigLoader.sha256("abc"))).isEqualTo(abc);
        var seen = new java.util.concurrent.atomic.AtomicReference<String>();
        Thread other = new Thread(() -> seen.set(ring.resolve("sk-two").map(k -> k.id()).orElse("none")));
        other.start();
        other.join(10_000);
        assertThat(seen.get()).isEqualTo("hashed");
        assertThat(ring.resolve("sk-one").orElseThrow().id()).isEqualTo("literal");
        assertThat(ring.resolve("sk-one").orElseThrow().id()).isEqualTo("literal");
    }
}
