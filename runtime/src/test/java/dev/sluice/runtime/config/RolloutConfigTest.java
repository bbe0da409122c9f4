package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code rollouts:} section: what it reads, and every bad definition named by its field path. */
class RolloutConfigTest {

    private static final String BASE = """
            deployments:
              old: { kind: openai, base_url: "http://127.0.0.1:1", capabilities: { region: eastus, retention: limited } }
              new: { kind: openai, base_url: "http://127.0.0.1:2", capabilities: { region: eastus, retention: limited } }
              keeps: { kind: openai, base_url: "http://127.0.0.1:3", capabilities: { region: eastus, retention: standard } }
            profiles:
              chat: { deployment: old, model: gpt-4o, fallback: { same_region: true } }
              other: { deployment: new, model: gpt-4o }
            orgs:
              o: { tenants: { acme: {}, beta: {} } }
            """;

    private static SluiceConfig parse(String rollouts) {
        return ConfigLoader.parse(BASE + rollouts, "rollout.yaml", name -> null);
    }

    private static ConfigException failure(String rollouts) {
        try {
            parse(rollouts);
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("accepted: " + rollouts);
    }

    @Test
    void aRolloutReadsItsStepsIntervalTenantsGrowthAndThresholds() {
        RolloutConfig r = parse("""
                rollouts:
                  move:
                    profile: chat
                    to: new
                    steps: [1, 5, 10, 25, 50, 100]
                    interval: 2m
                    tenants_first: [acme]
                    sticky: key
                    max_growth_per_minute: { rpm: 100, tpm: 50000 }
                    thresholds: { provider_429_rate: 0.005, p95_latency: 3s }
                    min_requests: 40
                    rollback_after: 3
                    start: immediately
                """).rollouts().get(0);

        assertThat(r.id()).isEqualTo("move");
        assertThat(r.from()).isEqualTo("old");
        assertThat(r.to()).isEqualTo("new");
        assertThat(r.steps()).containsExactly(1.0, 5.0, 10.0, 25.0, 50.0, 100.0);
        assertThat(r.interval()).isEqualTo(Duration.ofMinutes(2));
        assertThat(r.tenantsFirst()).containsExactly("acme");
        assertThat(r.sticky()).isEqualTo(RolloutConfig.Sticky.KEY);
        assertThat(r.maxGrowthPerMinute()).isEqualTo(Map.of(Dimension.REQUESTS, 100L, Dimension.TOTAL_TOKENS, 50_000L));
        assertThat(r.thresholds().provider429Rate()).isEqualTo(0.005);
        assertThat(r.thresholds().errorRate()).isEqualTo(0.02);
        assertThat(r.thresholds().p95Latency()).contains(Duration.ofSeconds(3));
        assertThat(r.thresholds().p95TimeToFirstToken()).isEmpty();
        assertThat(r.minRequests()).isEqualTo(40);
        assertThat(r.rollbackAfter()).isEqualTo(3);
        assertThat(r.startsAtOnce()).isTrue();
    }

    @Test
    void defaultsAreAFiveMinuteIntervalTenantStickinessTwentyRequestsTwoFailuresAndAStartOnCommand() {
        RolloutConfig r = parse("rollouts: { move: { profile: chat, to: new, steps: [50, 100] } }\n").rollouts().get(0);

        assertThat(r.interval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(r.sticky()).isEqualTo(RolloutConfig.Sticky.TENANT);
        assertThat(r.tenantsFirst()).isEmpty();
        assertThat(r.maxGrowthPerMinute()).isEmpty();
        assertThat(r.thresholds()).isEqualTo(RolloutConfig.Thresholds.DEFAULTS);
        assertThat(r.minRequests()).isEqualTo(20);
        assertThat(r.rollbackAfter()).isEqualTo(2);
        assertThat(r.startsAtOnce()).isFalse();
        assertThat(parse("").rollouts()).isEmpty();
    }

    @Test
    void stepsMustIncreaseStrictlyWithinZeroToAHundred() {
        assertThat(failure("rollouts: { move: { profile: chat, to: new, steps: [1, 5, 5, 100] } }\n").path())
                .isEqualTo("rollouts.move.steps[2]");
        assertThat(failure("rollouts: { move: { profile: chat, to: new, steps: [0, 100] } }\n").path())
                .isEqualTo("rollouts.move.steps[0]");
        assertThat(failure("rollouts: { move: { profile: chat, to: new, steps: [50, 120] } }\n").path())
                .isEqualTo("rollouts.move.steps[1]");
        assertThat(failure("rollouts: { move: { profile: chat, to: new, steps: [] } }\n").path())
                .isEqualTo("rollouts.move.steps");
        assertThat(failure("rollouts: { move: { profile: chat, to: new } }\n").path())
                .isEqualTo("rollouts.move.steps");
    }

    @Test
    void theTargetMustBeAnotherDeploymentTheProfilesFallbackPolicyAllows() {
        ConfigException looser = failure("rollouts: { move: { profile: chat, to: keeps, steps: [100] } }\n");
        assertThat(looser.path()).isEqualTo("rollouts.move.to");
        assertThat(looser.found()).contains("retention");

        assertThat(failure("rollouts: { move: { profile: chat, to: old, steps: [100] } }\n").path())
                .isEqualTo("rollouts.move.to");
        assertThat(failure("rollouts: { move: { profile: chat, to: nowhere, steps: [100] } }\n").path())
                .isEqualTo("rollouts.move.to");
        assertThat(failure("rollouts: { move: { profile: chat, from: new, to: old, steps: [100] } }\n").path())
                .isEqualTo("rollouts.move.from");
        assertThat(failure("rollouts: { move: { profile: none, to: new, steps: [100] } }\n").path())
                .isEqualTo("rollouts.move.profile");
    }

    @Test
    void thresholdsOfTheWrongTypeAreRejectedWithTheirPath() {
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], thresholds: { provider_429_rate: high } } }\n")
                .path()).isEqualTo("rollouts.m.thresholds.provider_429_rate");
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], thresholds: { error_rate: 2 } } }\n")
                .path()).isEqualTo("rollouts.m.thresholds.error_rate");
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], thresholds: { p95_latency: 300 } } }\n")
                .path()).isEqualTo("rollouts.m.thresholds.p95_latency");
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], thresholds: { p99: 1s } } }\n")
                .path()).isEqualTo("rollouts.m.thresholds.p99");
    }

    @Test
    void growthCeilingsTenantsStickinessAndStartAreChecked() {
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], max_growth_per_minute: { concurrency: 5 } } }\n")
                .path()).isEqualTo("rollouts.m.max_growth_per_minute.concurrency");
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], max_growth_per_minute: { rpm: 0 } } }\n")
                .path()).isEqualTo("rollouts.m.max_growth_per_minute.rpm");
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], tenants_first: [nobody] } }\n")
                .path()).isEqualTo("rollouts.m.tenants_first[0]");
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], sticky: conversation } }\n")
                .path()).isEqualTo("rollouts.m.sticky");
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], start: later } }\n")
                .path()).isEqualTo("rollouts.m.start");
        assertThat(failure("rollouts: { m: { profile: chat, to: new, steps: [100], rollback_after: 0 } }\n")
                .path()).isEqualTo("rollouts.m.rollback_after");
    }

    @Test
    void aProfileIsMovedByOneRolloutAtATime() {
        assertThat(failure("""
                rollouts:
                  a: { profile: chat, to: new, steps: [100] }
                  b: { profile: chat, to: new, steps: [50] }
                """).path()).isEqualTo("rollouts.b.profile");
    }

    @Test
    void changesOfTheKeyTreeKeepTheRollouts() {
        SluiceConfig c = parse("rollouts: { move: { profile: chat, to: new, steps: [100] } }\n");

        assertThat(c.withOrgs(c.orgs()).rollouts()).hasSize(1);
        assertThat(c.withProfiles(c.profiles()).rollouts()).isEqualTo(c.rollouts());
    }
}
