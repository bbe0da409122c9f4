package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.governor.TrafficClass;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import org.junit.jupiter.api.Test;

/**
 * Interactive chats are not starved by batch work on a shared bucket (issue 16 item 1): a batch
 * tenant asks for about 160% of the deployment's input tokens in 3,500-token prompts, while
 * chats of 3,000 tokens ask for a fifth of it and may wait 300 ms. Batch work queued on the
 * bucket would otherwise take every refill, and a chat that finds it empty needs up to 1.5 s of
 * refill, far more than it may wait.
 *
 * <p>The deployment declares a minute-long window: under the default one-second window every
 * prompt here is larger than the window's allowance (2,000 tokens), waits for a full bucket and
 * leaves debt, and a reserve that is a fraction of that allowance cannot hold room for a chat
 * (interactive success fell to 76% when the two met; recorded on issue 16).
 */
class InteractiveBesideBatchTest {

    private static Scenario scenario(String classes) {
        return ScenarioLoader.parse("""
                description: Chats beside a batch tenant asking for about 160%% of input TPM.
                duration: 5m
                seed: 11
                deployments:
                  dep:
                    kind: anthropic
                    base_url: http://127.0.0.1:9
                    limits: { rpm: 6000, input_tpm: 120000, output_tpm: 10000000 }
                    window: 60s
                    adaptive: { enabled: true }
                profiles:
                  model: { deployment: dep, model: claude-haiku-4-5, tokenizer: calibrated }
                %s
                orgs:
                  o:
                    tenants:
                      chat:
                        teams:
                          t:
                            keys:
                              chat-key: { secret: sim-beside-chat, class: interactive, max_class: interactive, deadline: 30s }
                      bulk:
                        teams:
                          t:
                            keys:
                              bulk-key: { secret: sim-beside-bulk, class: batch, max_class: batch, deadline: 10m }
                workload:
                  - key: chat-key
                    arrival: { kind: poisson, rate: 0.15/s }
                    prompt_tokens: 3000
                    max_tokens: 200
                    output_tokens: 100
                  - key: bulk-key
                    arrival: { kind: poisson, rate: 0.9/s }
                    prompt_tokens: 3500
                    max_tokens: 200
                    output_tokens: 100
                """.formatted(classes), "interactive-beside-batch");
    }

    private static long interactiveRefusals(RunReport r) {
        return r.json().path("classes").path("interactive").path("local_rejections").asLong();
    }

    @Test
    void withTheDefaultReserveEveryChatIsServedAtOnceAndBatchStillUsesTheLimit() {
        RunReport r = Simulation.run(scenario(""), "sluice", 11, true);
        assertThat(r.interactiveSuccessRate()).as("interactive success").isGreaterThanOrEqualTo(0.99);
        assertThat(interactiveRefusals(r)).as("chats refused by the gateway, then retried by their client").isZero();
        assertThat(r.classes().get(TrafficClass.INTERACTIVE).queueWaitP99Millis()).isLessThanOrEqualTo(300);
        assertThat(r.classes().get(TrafficClass.BATCH).successRate()).as("batch success").isGreaterThan(0.9);
        assertThat(r.utilization()).as("input TPM used").isGreaterThanOrEqualTo(0.9);
        assertThat(r.lost()).isZero();
    }

    @Test
    void withoutAReserveBatchWorkTakesTheRefillsAndChatsAreRefused() {
        RunReport r = Simulation.run(scenario("classes: { interactive: { reserve: 0 } }"), "sluice", 11, true);
        // The clients retry and get through in the end, seconds late: the refusals are what starving looks like.
        assertThat(interactiveRefusals(r)).isGreaterThanOrEqualTo(10);
    }
}
