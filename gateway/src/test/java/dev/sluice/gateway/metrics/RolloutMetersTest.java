package dev.sluice.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.rollout.IntervalFigures;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.Rollouts;
import dev.sluice.time.FakeClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Rollout decisions counted and their share in force, in the metrics and the log line. */
class RolloutMetersTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              old: { kind: openai, base_url: "http://127.0.0.1:1" }
              new: { kind: openai, base_url: "http://127.0.0.1:2" }
            profiles:
              p: { deployment: old, model: gpt-4o-mini }
              q: { deployment: old, model: gpt-4o-mini }
            rollouts:
              move: { profile: p, to: new, steps: [10, 50, 100], interval: 1m }
              early: { profile: q, to: new, steps: [5, 100], interval: 1m, start: immediately }
            """, "rollout-metrics.yaml", v -> null);

    @Test
    void everyDecisionIsCountedByActionAndThePercentFollowsTheStageInForce() {
        Rollouts rollouts = new Rollouts(CONFIG, new FakeClock(), d -> {
            throw new AssertionError("no analysis here");
        });
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RolloutMeters.bind(registry, rollouts);
        Scrape before = new Scrape(registry.scrape());
        assertThat(before.value("sluice_rollout_decisions_total", "rollout", "move", "action", "started")).hasValue(0);
        assertThat(before.value("sluice_rollout_percent", "rollout", "move")).hasValue(0);

        rollouts.start("move", "ops");
        assertThat(new Scrape(registry.scrape()).value("sluice_rollout_percent", "rollout", "move")).hasValue(10);
        rollouts.advance("move", "ops");
        rollouts.pause("move", "ops");
        rollouts.resume("move", "ops");
        Scrape running = new Scrape(registry.scrape());
        assertThat(running.value("sluice_rollout_percent", "rollout", "move")).hasValue(50);
        assertThat(running.value("sluice_rollout_decisions_total", "rollout", "move", "action", "advanced")).hasValue(1);
        assertThat(running.value("sluice_rollout_decisions_total", "rollout", "move", "action", "paused")).hasValue(1);
        rollouts.rollback("move", "ops", "answers look wrong");

        Scrape after = new Scrape(registry.scrape());
        assertThat(after.value("sluice_rollout_percent", "rollout", "move")).hasValue(0);
        assertThat(after.value("sluice_rollout_decisions_total", "rollout", "move", "action", "rolled_back")).hasValue(1);
        assertThat(after.sum("sluice_rollout_decisions_total", "rollout", "move")).isEqualTo(5);
        assertThat(after.matching("sluice_rollout_decisions_total", "rollout", "move")).hasSize(7);
    }

    @Test
    void aRolloutTheFileStartedBeforeTheMetricsBoundIsCountedOnce() {
        Rollouts rollouts = new Rollouts(CONFIG, new FakeClock(), d -> {
            throw new AssertionError("no analysis here");
        });
        rollouts.startConfigured();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RolloutMeters.bind(registry, rollouts);
        Scrape s = new Scrape(registry.scrape());
        assertThat(s.value("sluice_rollout_decisions_total", "rollout", "early", "action", "started")).hasValue(1);
        assertThat(s.value("sluice_rollout_percent", "rollout", "early")).hasValue(5);
        assertThat(s.sum("sluice_rollout_decisions_total", "rollout", "move")).isZero();
    }

    @Test
    void theLatestJudgedIntervalsFiguresAreGaugedWhicheverReplicaDecided() {
        Rollouts rollouts = new Rollouts(CONFIG, new FakeClock(), d -> {
            throw new AssertionError("no analysis here");
        });
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RolloutMeters.bind(registry, rollouts);
        assertThat(new Scrape(registry.scrape()).value("sluice_rollout_interval_provider_429_rate", "rollout", "move"))
                .hasValue(Double.NaN);
        IntervalFigures f = new IntervalFigures(200, 3, 2, 190, 19, OptionalLong.of(1_250_000_000L), OptionalLong.empty(),
                OptionalLong.empty(), 0);
        RolloutDecision other = new RolloutDecision("move", 1_700_000_000_000L, RolloutDecision.Action.PAUSED, "analysis",
                0, 0, 10, "provider_429_rate 0.015 above 0.005 (failed interval 1 of 2)", Optional.of(f));

        // Another replica's decision, read from the journal: not counted here, its figures shown.
        rollouts.restore("move", new dev.sluice.runtime.rollout.RolloutState(
                dev.sluice.runtime.rollout.Rollout.Status.PAUSED, 0, false, 1, 2), other);

        Scrape s = new Scrape(registry.scrape());
        assertThat(s.value("sluice_rollout_interval_attempts", "rollout", "move")).hasValue(200);
        assertThat(s.value("sluice_rollout_interval_provider_429_rate", "rollout", "move")).hasValue(0.015);
        assertThat(s.value("sluice_rollout_interval_error_rate", "rollout", "move")).hasValue(0.01);
        assertThat(s.value("sluice_rollout_interval_fallback_rate", "rollout", "move")).hasValue(0.1);
        assertThat(s.value("sluice_rollout_interval_p95_latency_seconds", "rollout", "move")).hasValue(1.25);
        assertThat(s.sum("sluice_rollout_decisions_total", "rollout", "move")).isZero();
    }

    @Test
    void warmupDecisionsAreCountedByActionAndTheMinutesGrownAreGauged() {
        SluiceConfig config = ConfigLoader.parse("""
                deployments: { old: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: old, model: gpt-4o-mini } }
                orgs: { o: { tenants: { jobs: { limits: { rpm: 240 } } } } }
                warmups:
                  nightly: { tenant: jobs, start: "02:00", duration: 1h, initial: { rpm: 12 }, max_growth_per_minute: { rpm: 40 } }
                """, "warmup-metrics.yaml", v -> null);
        FakeClock clock = new FakeClock();
        dev.sluice.runtime.SluiceRuntime runtime = dev.sluice.runtime.SluiceRuntime.builder(config,
                new dev.sluice.store.InMemoryQuotaStore(clock, java.time.ZoneOffset.UTC)).clock(clock).adaptive(false).build();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        WarmupMeters.bind(registry, runtime.warmups());
        Scrape before = new Scrape(registry.scrape());
        assertThat(before.matching("sluice_warmup_decisions_total", "warmup", "nightly")).hasSize(6);
        assertThat(before.value("sluice_warmup_grown_minutes", "warmup", "nightly")).hasValue(0);

        runtime.warmups().restore("nightly", new dev.sluice.runtime.rollout.WarmupState(
                dev.sluice.runtime.rollout.Warmup.Status.WARMING, 3, false, clock.epochMillis(), 4),
                new dev.sluice.runtime.rollout.WarmupDecision("nightly", "jobs", clock.epochMillis(), "grown", "analysis",
                        3, java.util.Map.of(dev.sluice.limits.Dimension.REQUESTS, 132L), "a minute within the threshold"));
        runtime.warmups().pause("nightly", "ops");

        Scrape after = new Scrape(registry.scrape());
        assertThat(after.value("sluice_warmup_grown_minutes", "warmup", "nightly")).hasValue(3);
        assertThat(after.value("sluice_warmup_decisions_total", "warmup", "nightly", "action", "paused")).hasValue(1);
        assertThat(after.sum("sluice_warmup_decisions_total", "warmup", "nightly")).isEqualTo(1);
    }

    @Test
    void theLogLineOfAnAnalysisDecisionCarriesItsIntervalsFigures() {
        IntervalFigures f = new IntervalFigures(120, 1, 0, 118, 2, OptionalLong.of(420_000_000L), OptionalLong.empty(),
                OptionalLong.of(5_500_000L), 0.031);
        RolloutDecision d = new RolloutDecision("move", 1_700_000_000_000L, RolloutDecision.Action.ADVANCED, "analysis",
                0, 1, 50, "the interval passed", Optional.of(f));
        assertThat(RolloutLog.line(d)).isEqualTo("rollout move: advanced by analysis, stage 0 -> 1, 50% on the target: "
                + "the interval passed (interval: attempts 120, 429s 1 (0.83%), failed 0 (0%), requests 118, fell back 2 "
                + "(1.69%), p95 latency 420 ms, p95 queue wait 5 ms, estimate error 3.1%)");
        RolloutDecision command = new RolloutDecision("move", 1_700_000_000_000L, RolloutDecision.Action.ROLLED_BACK,
                "ops", 1, -1, 0, "rolled back by ops: answers look wrong", Optional.empty());
        assertThat(RolloutLog.line(command)).isEqualTo(
                "rollout move: rolled_back by ops, stage 1 -> -1, 0% on the target: rolled back by ops: answers look wrong");
    }
}
