package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The bundled rollout scenarios under the sluice strategy, each beside the naive migration in the
 * same run: the profile cut over to the target at once, with no gateway ({@code none}).
 */
class RolloutScenarioTest {

    private static Scenario load(String file) {
        return ScenarioLoader.load(Path.of("../scenarios/" + file));
    }

    /** The same scenario cut over at once: the profile on the target, no rollout. */
    private static Scenario cutOver(String file) throws IOException {
        String yaml = Files.readString(Path.of("../scenarios/" + file));
        String rollouts = yaml.substring(yaml.indexOf("rollouts:"), yaml.indexOf("orgs:"));
        return ScenarioLoader.parse(yaml.replace(rollouts, "").replace("deployment: gpt4o-old", "deployment: gpt4o-new"),
                file + "-cut-over");
    }

    private static double rate(JsonNode deployment) {
        long arrivals = deployment.path("provider_arrivals").asLong();
        return arrivals == 0 ? 0 : deployment.path("provider_rejections").asDouble() / arrivals;
    }

    @Test
    void aMigrationThatGoesWellReachesAHundredPercentWithFewProvider429s() {
        Scenario s = load("rollout-migration.yaml");

        RunReport r = Simulation.run(s, "sluice", s.seed(), true);
        JsonNode j = r.json();
        JsonNode d = j.path("diagnostics");

        assertThat(d.path("rollout_move-chat_final_complete").asLong()).as("completed: " + d).isEqualTo(1);
        assertThat(d.path("rollout_move-chat_final_percent").asLong()).isEqualTo(100);
        assertThat(d.path("rollout_move-chat_paused").asLong()).as("never paused").isZero();
        assertThat(d.path("rollout_move-chat_max_interval_429_permille").asLong()).as("every interval").isLessThanOrEqualTo(5);
        assertThat(rate(j.path("deployments").path("gpt4o-new"))).as("target, whole run").isLessThanOrEqualTo(0.005);
        assertThat(rate(j.path("deployments").path("gpt4o-old"))).as("source, whole run").isLessThanOrEqualTo(0.005);
        assertThat(r.lost()).isZero();
    }

    @Test
    void aPendingRolloutsShadowPhaseSendsSampledCopiesToTheTargetAndAnswersEveryClientFromTheSource()
            throws IOException {
        String yaml = Files.readString(Path.of("../scenarios/rollout-migration.yaml"))
                .replace("    start: immediately\n", "    shadow: { sample: 0.2 }\n");
        Scenario s = ScenarioLoader.parse(yaml, "rollout-migration-shadow");

        RunReport r = Simulation.run(s, "sluice", s.seed(), true);
        JsonNode j = r.json();
        JsonNode d = j.path("diagnostics");
        JsonNode target = j.path("deployments").path("gpt4o-new");

        assertThat(d.path("rollout_move-chat_final_pending").asLong()).as("never started: " + d).isEqualTo(1);
        long copies = d.path("rollout_shadow_copies").asLong();
        // About a fifth of the source's requests (by trace id), fewer when the target had no room at once.
        assertThat(copies).isPositive();
        assertThat((double) copies / j.path("deployments").path("gpt4o-old").path("provider_arrivals").asLong())
                .isBetween(0.1, 0.25);
        assertThat(target.path("provider_arrivals").asLong()).as("only copies reach the pending target")
                .isEqualTo(copies);
        assertThat(r.lost()).isZero();
    }

    @Test
    void onTwoReplicasSharingAStoreTheMigrationIsJudgedOnceOnTheFleetsFiguresAndEveryReplicaEndsComplete()
            throws IOException {
        String yaml = Files.readString(Path.of("../scenarios/rollout-migration.yaml"));
        Scenario s = ScenarioLoader.parse("replicas: 2\nstore: { kind: redis }\n" + yaml, "rollout-migration-two");

        RunReport r = Simulation.run(s, "sluice", s.seed(), true);
        JsonNode d = r.json().path("diagnostics");

        assertThat(d.path("rollout_move-chat_final_complete").asLong()).as("completed: " + d).isEqualTo(1);
        assertThat(d.path("rollout_move-chat_replicas_agreeing").asLong()).isEqualTo(2);
        assertThat(d.path("rollout_move-chat_decided_elsewhere").asLong()).as("r1 decides nothing itself").isZero();
        // Four steps: three advances and the completion, each decided once for the fleet (by r0).
        assertThat(d.path("rollout_move-chat_advanced").asLong()).isEqualTo(3);
        assertThat(d.path("rollout_move-chat_completed").asLong()).isEqualTo(1);
        assertThat(r.lost()).isZero();
    }

    @Test
    void aTargetWhoseRealLimitIsLowerThanDeclaredIsPausedThenRolledBackWhileInteractiveKeepsSucceeding()
            throws IOException {
        Scenario s = load("rollout-lower-limit.yaml");

        RunReport r = Simulation.run(s, "sluice", s.seed(), true);
        JsonNode j = r.json();
        JsonNode d = j.path("diagnostics");
        RunReport naive = Simulation.run(cutOver("rollout-lower-limit.yaml"), "none", s.seed(), false);

        assertThat(d.path("rollout_move-chat_final_rolled_back").asLong()).as("rolled back: " + d).isEqualTo(1);
        assertThat(d.path("rollout_move-chat_first_paused_at_ms").asLong()).as("paused before it rolled back")
                .isLessThan(d.path("rollout_move-chat_first_rolled_back_at_ms").asLong());
        assertThat(d.path("rollout_move-chat_first_paused_target_429_permille").asLong())
                .as("the target's 429 rate over the rollout when it paused").isLessThan(10);
        double success = j.path("classes").path("interactive").path("success_rate").asDouble();
        assertThat(success).as("interactive success: " + j.path("classes")).isGreaterThanOrEqualTo(0.99);
        double naiveSuccess = naive.json().path("classes").path("interactive").path("success_rate").asDouble();
        assertThat(naiveSuccess).as("the cut-over's interactive success").isLessThan(success);
        assertThat(r.lost()).isZero();
    }
}
