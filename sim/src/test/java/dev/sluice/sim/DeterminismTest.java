package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The same scenario and seed give the same report, byte for byte; another seed gives another. */
class DeterminismTest {

    private static String json(String scenario, String seed, String... more) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--scenario", scenario, "--strategy",
                "all", "--seed", seed, "--format", "json", "--short", "--scenarios", "../scenarios"));
        args.addAll(java.util.List.of(more));
        int rc = SimCommand.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(rc).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void sameSeedGivesByteIdenticalJson() {
        String first = json("noisy-neighbour", "42");
        String second = json("noisy-neighbour", "42");
        assertThat(first).isEqualTo(second);
        assertThat(first).contains("\"strategy\" : \"sluice\"", "\"strategy\" : \"none\"");
    }

    @Test
    void sameSeedGivesByteIdenticalJsonWithReplicasAndFaults() {
        assertThat(json("three-replicas", "5")).isEqualTo(json("three-replicas", "5"));
        assertThat(json("two-providers", "5")).isEqualTo(json("two-providers", "5"));
    }

    @Test
    void aDrawnProviderModelIsAsDeterministicAsTheReference() {
        String drawn = json("noisy-neighbour", "42", "--model", "3");
        assertThat(drawn).isEqualTo(json("noisy-neighbour", "42", "--model", "3"));
        assertThat(drawn).contains("\"provider_model\" : 3").isNotEqualTo(json("noisy-neighbour", "42"));
        assertThat(json("provider-faults", "9", "--model", "2")).isEqualTo(json("provider-faults", "9", "--model", "2"));
    }

    @Test
    void anotherSeedGivesAnotherRun() {
        assertThat(json("noisy-neighbour", "1")).isNotEqualTo(json("noisy-neighbour", "2"));
    }
}
