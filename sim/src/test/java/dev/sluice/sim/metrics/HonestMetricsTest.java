package dev.sluice.sim.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.Simulation;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import org.junit.jupiter.api.Test;

/** The metrics issue 16 item 8 needs, on workloads whose answer is known. */
class HonestMetricsTest {

    private static Scenario scenario(String limits, String rate, String outputTokens, String deadline) {
        return ScenarioLoader.parse("""
                duration: 5m
                deployments:
                  d: { kind: openai, base_url: http://127.0.0.1:9, limits: %s }
                profiles:
                  p: { deployment: d, model: m, tokenizer: o200k_base }
                orgs:
                  o:
                    tenants:
                      t:
                        teams:
                          team:
                            keys:
                              k: { secret: s1, class: interactive, deadline: %s }
                workload:
                  - key: k
                    arrival: { kind: constant, rate: %s }
                    prompt_tokens: 100
                    max_tokens: 4000
                    output_tokens: %s
                """.formatted(limits, deadline, rate, outputTokens), "x");
    }

    @Test
    void aStreamStillGeneratingAtItsDeadlineIsATimeoutNotASuccess() {
        // 2,000 tokens at 80 per second take 25 s; the client gives up after 10.
        RunReport r = Simulation.run(scenario("{ rpm: 6000, tpm: 100000000 }", "1/s", "2000", "10s"), "none", 1,
                false);
        long requests = r.json().path("requests").asLong();
        assertThat(r.timeouts()).isEqualTo(requests);
        assertThat(r.json().path("timeouts_generating").asLong()).isEqualTo(requests);
        assertThat(r.interactiveSuccessRate()).isZero();
        assertThat(r.goodputTokens()).as("what the client no longer waits for is not goodput").isZero();
        assertThat(r.lost()).isZero();
    }

    @Test
    void utilisationIsMeasuredOnlyUnderSaturationAndAgainstTheLimitInForce() {
        // 150% of 600 RPM on one-second windows: the naive clients keep the provider at its limit.
        RunReport saturated = Simulation.run(scenario("{ rpm: 600, tpm: 100000000 }", "15/s", "10", "60s"), "none",
                1, false);
        assertThat(saturated.saturated()).containsExactly("d");
        assertThat(saturated.utilization()).isBetween(0.95, 1.0);
        assertThat(saturated.json().path("deployments").path("d").path("binding_limit").asText()).isEqualTo("rpm");
        assertThat(saturated.interactiveFits()).isFalse();
        RunReport idle = Simulation.run(scenario("{ rpm: 600, tpm: 100000000 }", "5/s", "10", "60s"), "none", 1,
                false);
        assertThat(idle.saturated()).isEmpty();
        assertThat(idle.utilization()).isNaN();
        assertThat(idle.json().path("utilization").isNull()).isTrue();
        assertThat(idle.interactiveFits()).isTrue();
    }
}
