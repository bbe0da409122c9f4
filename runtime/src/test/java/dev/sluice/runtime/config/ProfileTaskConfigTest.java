package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A profile is a chat profile unless marked as an embedding profile. */
class ProfileTaskConfigTest {

    private static ProfileConfig profile(String extra) {
        String yaml = "deployments:\n  d: { kind: gemini, base_url: \"http://127.0.0.1:1\" }\n"
                + "profiles:\n  p: { deployment: d, model: m" + extra + " }\n";
        return ConfigLoader.parse(yaml, "t.yaml", Map.<String, String>of()::get).profile("p").orElseThrow();
    }

    @Test
    void aProfileIsAChatProfileUnlessMarked() {
        assertThat(profile("").task()).isEqualTo(ProfileConfig.Task.CHAT);
        assertThat(profile(", task: embedding").task()).isEqualTo(ProfileConfig.Task.EMBEDDING);
        assertThat(profile(", task: chat").task()).isEqualTo(ProfileConfig.Task.CHAT);
    }

    @Test
    void anUnknownTaskIsNamedWithItsPath() {
        assertThatThrownBy(() -> profile(", task: vision"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("profiles.p.task")
                .hasMessageContaining("chat or embedding").hasMessageContaining("vision");
    }
}
