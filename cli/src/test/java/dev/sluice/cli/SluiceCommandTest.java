package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SluiceCommandTest {

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    int run(String... args) {
        return SluiceCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void checkConfigAcceptsAValidFileAndWarnsAboutMissingVariables(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ok.yaml");
        Files.writeString(file, """
                deployments: { d: { kind: openai, base_url: "https://api.openai.com", api_key_env: SLUICE_TEST_UNSET_VAR } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                """);
        assertThat(run("check-config", file.toString())).isZero();
        assertThat(out()).contains("valid: 1 deployments, 1 profiles")
                .contains("  ledger: sqlite at sluice-data/ledger.db")
                .contains("SLUICE_TEST_UNSET_VAR is not set");
    }

    @Test
    void checkConfigNamesTheBadFieldAndExitsWithTwo(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, """
                deployments: { d: { kind: openai, base_url: "https://api.openai.com" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini, limits: { rpm: 0 } } }
                """);
        assertThat(run("check-config", file.toString())).isEqualTo(2);
        assertThat(err()).contains("profiles.p.limits.rpm: 0 (expected: > 0)");
    }

    @Test
    void unknownCommandsAndOptionsExitWithTwo() {
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(run("demo", "--colour", "red")).isEqualTo(2);
        assertThat(err()).contains("unknown option '--colour'");
        assertThat(run("serve")).isEqualTo(2);
        assertThat(err()).contains("--config FILE is required");
    }

    @Test
    void serveRefusesAConfigurationWhoseCredentialsAreMissing(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("env.yaml");
        Files.writeString(file, """
                server: { port: 0 }
                deployments: { d: { kind: openai, base_url: "https://api.openai.com", api_key_env: SLUICE_TEST_UNSET_VAR } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                """);
        assertThat(run("serve", "--config", file.toString())).isEqualTo(1);
        assertThat(err()).contains("SLUICE_TEST_UNSET_VAR is not set");
    }

    @Test
    void theBundledDemoConfigurationIsValid() throws Exception {
        String yaml = DemoCommand.resource().replace("${OPENAI_URL}", "http://127.0.0.1:1")
                .replace("${ANTHROPIC_URL}", "http://127.0.0.1:2").replace("${GEMINI_URL}", "http://127.0.0.1:3");
        SluiceConfig c = ConfigLoader.parse(yaml, "demo.yaml", v -> null);
        assertThat(c.keys()).hasSize(7);
        assertThat(c.profiles().get("gemini-embed").task()).isEqualTo(dev.sluice.runtime.config.ProfileConfig.Task.EMBEDDING);
        assertThat(c.missingEnvironment()).isEmpty();
    }

    @Test
    void demoRunsForTheGivenSecondsAndBalancesItsLedger() {
        assertThat(run("demo", "--seconds", "2", "--port", "0")).as(err()).isZero();
        assertThat(out()).contains("sk-demo-you").contains("/v1/chat/completions").contains("Final:")
                .containsPattern("OpenAI SDKs.*http://127\\.0\\.0\\.1:\\d+/v1\\n")
                .containsPattern("Anthropic SDKs.*http://127\\.0\\.0\\.1:\\d+ .*@ai-sdk/anthropic: http://127\\.0\\.0\\.1:\\d+/v1\\)")
                .containsPattern("@ai-sdk/google: http://127\\.0\\.0\\.1:\\d+/v1beta\\)")
                .contains("tool round trips")
                .contains("duplicates=0");
        assertThat(out()).as("the dashboard with the read token, in the fragment")
                .containsPattern("Dashboard: http://127\\.0\\.0\\.1:\\d+/admin/dashboard#token=sla-demo-read");
        assertThat(out()).as("a header names the per-second line's columns")
                .containsPattern("  time   sent     ok local-429 provider-429 errors in-flight \\| acme ok/sent");
        assertThat(out()).containsPattern("reservations opened=(\\d+) settled=\\1 released=0");
    }
}
