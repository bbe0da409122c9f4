package dev.sluice.sim.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ScenarioLoaderTest {

    private static final String BASE = """
            duration: 10m
            ci_duration: 1m
            deployments:
              d: { kind: openai, base_url: http://127.0.0.1:9, limits: { rpm: 600, tpm: 100000 } }
            profiles:
              p: { deployment: d, model: m, tokenizer: o200k_base }
            orgs:
              o:
                tenants:
                  t:
                    teams:
                      team:
                        keys:
                          k: { secret: s1, class: interactive }
            """;

    private static final String WORKLOAD = """
            workload:
              - key: k
                arrival: { kind: poisson, rate: 300/m, steps: [ { at: 5m, rate: 2/s } ] }
                prompt_tokens: { lognormal: { median: 800, p95: 2000 } }
                max_tokens: 256
                output_tokens: { uniform: [50, 150] }
            """;

    @Test
    void readsTheGatewaySchemaAndTheSimulatorKeys() {
        Scenario s = ScenarioLoader.parse(BASE + WORKLOAD + """
                events:
                  - { at: 4m, kind: limit_cut, deployment: d, factor: 0.5 }
                """, "x");
        assertThat(s.name()).isEqualTo("x");
        assertThat(s.config().deployments()).containsKey("d");
        assertThat(s.workload().get(0).arrival()).isInstanceOf(Arrival.Poisson.class);
        assertThat(((Arrival.Poisson) s.workload().get(0).arrival()).perSecond()).isEqualTo(5.0);
        assertThat(s.events()).hasSize(1);
        assertThat(s.goals()).isEqualTo(Goals.DEFAULT);
        assertThat(s.providers().get("d").requestWindow()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.secrets()).containsEntry("k", "s1");
    }

    @Test
    void shortFormScalesTimesButNotRates() {
        Scenario s = ScenarioLoader.parse(BASE + WORKLOAD + """
                events:
                  - { at: 4m, kind: fault_burst, deployment: d, duration: 30s, error_rate: 0.5 }
                """, "x").shortForm();
        assertThat(s.duration()).isEqualTo(Duration.ofMinutes(1));
        assertThat(s.events().get(0).at()).isEqualTo(Duration.ofSeconds(24));
        assertThat(((ScriptedEvent.FaultBurst) s.events().get(0)).duration()).isEqualTo(Duration.ofSeconds(30));
        Arrival.Poisson p = (Arrival.Poisson) s.workload().get(0).arrival();
        assertThat(p.steps().get(0).at()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.perSecond()).isEqualTo(5.0);
    }

    @Test
    void gatewayConfigErrorsKeepTheirPath() {
        assertThatThrownBy(() -> ScenarioLoader.parse(BASE.replace("rpm: 600", "rpm: -1") + WORKLOAD, "x"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("deployments.d.limits");
    }

    @Test
    void workloadErrorsNameTheirPlace() {
        assertThatThrownBy(() -> ScenarioLoader.parse(BASE + WORKLOAD.replace("key: k", "key: nope"), "x"))
                .hasMessage("workload[0].key: nope (expected: a configured key id)");
        assertThatThrownBy(() -> ScenarioLoader.parse(BASE + WORKLOAD.replace("300/m", "lots"), "x"))
                .hasMessage("workload[0].arrival.rate: \"lots\" (expected: a rate such as 5/s, 300/m or 60/h)");
        assertThatThrownBy(() -> ScenarioLoader.parse(BASE + WORKLOAD.replace("max_tokens", "max_tokns"), "x"))
                .hasMessageStartingWith("workload[0].max_tokns: an unknown key");
    }

    @Test
    void eventsMustNameAConfiguredDeployment() {
        assertThatThrownBy(() -> ScenarioLoader.parse(BASE + WORKLOAD + """
                events:
                  - { at: 1m, kind: limit_restore, deployment: other }
                """, "x")).hasMessageStartingWith("events[0].deployment: other (expected: a configured deployment");
    }

    @Test
    void ciDurationMayNotExceedTheDuration() {
        assertThatThrownBy(() -> ScenarioLoader.parse(BASE.replace("ci_duration: 1m", "ci_duration: 20m") + WORKLOAD,
                "x")).hasMessageStartingWith("ci_duration: PT20M (expected: > 0 and <= duration PT10M)");
    }

    @Test
    void providerPinsFixAxesOverWhateverMemberIsDrawn() {
        Scenario s = ScenarioLoader.parse(BASE + WORKLOAD + """
                providers:
                  d:
                    windows: { input_tpm: { window: 1s }, rpm: { kind: sliding, window: 2s, burst: 1.5 } }
                    token_count: { factor: 1.1, per_request: 20 }
                    retry_after: full_refill
                    headers: stale
                    header_staleness: 3s
                    warm_up: { initial: 0.25, doubling: 45s }
                """, "x");
        var b = s.providers().get("d").behaviour(dev.sluice.mock.limits.ProviderBehaviour.REFERENCE);
        var input = b.enforcement().get(dev.sluice.mock.limits.LimitKind.INPUT_TOKENS);
        assertThat(input.kind()).as("a token limit's own kind in the reference model")
                .isEqualTo(dev.sluice.mock.limits.WindowKind.TOKEN_BUCKET);
        assertThat(input.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(input.burst()).isEqualTo(1.0);
        var rpm = b.enforcement().get(dev.sluice.mock.limits.LimitKind.REQUESTS);
        assertThat(rpm.kind()).isEqualTo(dev.sluice.mock.limits.WindowKind.SLIDING);
        assertThat(rpm.burst()).isEqualTo(1.5);
        assertThat(b.counting().prompt(1_000)).isEqualTo(1_120);
        assertThat(b.retryAfter()).isEqualTo(dev.sluice.mock.limits.RetryAfterMeaning.FULL_REFILL);
        assertThat(b.headerStaleness()).isEqualTo(Duration.ofSeconds(3));
        assertThat(b.warmUp()).isPresent();
        var drawn = dev.sluice.mock.limits.ProviderFamily.member(1, 2, "d", Duration.ofMinutes(10),
                dev.sluice.mock.limits.ProviderFamily.Facts.ANY);
        var pinned = s.providers().get("d").behaviour(drawn);
        assertThat(pinned.enforcement().get(dev.sluice.mock.limits.LimitKind.INPUT_TOKENS).kind())
                .as("the window is pinned, the kind still drawn")
                .isEqualTo(drawn.enforcement().get(dev.sluice.mock.limits.LimitKind.INPUT_TOKENS).kind());
    }

    @Test
    void goalsTakeBoundsOrOffAndNameUnknownKeys() {
        Scenario s = ScenarioLoader.parse(BASE + WORKLOAD + """
                goals:
                  provider_429_rate: 0.01
                  jain: off
                  timeouts: off
                """, "x");
        assertThat(s.goals().maxProvider429Rate()).contains(0.01);
        assertThat(s.goals().minJainIndex()).isEmpty();
        assertThat(s.goals().noTimeouts()).isFalse();
        assertThat(s.goals().interactiveSuccess()).contains(0.99);
        assertThatThrownBy(() -> ScenarioLoader.parse(BASE + WORKLOAD + "goals: { max_provider_429_rate: 0.01 }\n",
                "x")).isInstanceOf(ConfigException.class).hasMessageContaining("goals.max_provider_429_rate");
    }

    @Test
    void pinnedWindowsOutsideTheirRangeAreRefusedWithTheirPath() {
        assertThatThrownBy(() -> ScenarioLoader.parse(BASE + WORKLOAD + """
                providers:
                  d: { windows: { tpm: { burst: 20 } } }
                """, "x")).isInstanceOf(ConfigException.class).hasMessageContaining("providers.d.windows.tpm.burst");
    }
}
