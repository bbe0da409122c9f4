package dev.sluice.runtime.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** A runtime's warm-ups: started at their time of day or on first traffic, applied to the tenant's buckets. */
class WarmupsTest {

    private static SluiceConfig config(String start) {
        return ConfigLoader.parse("""
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                warmups:
                  nightly: { tenant: jobs, start: "%s", duration: 1h, initial: { rpm: 12 }, max_growth_per_minute: { rpm: 40 } }
                orgs:
                  o: { tenants: { jobs: { limits: { rpm: 240 } } } }
                """.formatted(start), "warmups.yaml", v -> null);
    }

    final FakeClock clock = new FakeClock(Instant.parse("2026-12-03T01:59:00Z"));

    SluiceRuntime runtime(String start) {
        return SluiceRuntime.builder(config(start), new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
    }

    private static BucketState.DimensionState rpm(SluiceRuntime r) {
        return r.governor().bucket(Scope.of(ScopeLevel.TENANT, "jobs")).orElseThrow().of(Dimension.REQUESTS).orElseThrow();
    }

    @Test
    void aScheduledWarmupStartsAtItsTimeOfDayAndPacesTheTenantsBucketsFromOneSecondsWorth() {
        SluiceRuntime r = runtime("02:00");
        r.tick();
        assertThat(r.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.WAITING);

        clock.advance(Duration.ofSeconds(61));
        r.tick();

        Warmups.View v = r.warmups().inspect("nightly");
        assertThat(v.status()).isEqualTo(Warmup.Status.WARMING);
        assertThat(v.rates()).containsEntry(Dimension.REQUESTS, 12L);
        assertThat(rpm(r).rateFactor()).isEqualTo(12 / 240.0);
        assertThat(rpm(r).available()).as("not a full bucket's burst").isLessThanOrEqualTo(1.0);

        clock.advance(Duration.ofMinutes(1));
        r.tick();
        assertThat(r.warmups().inspect("nightly").rates()).containsEntry(Dimension.REQUESTS, 52L);
        assertThat(rpm(r).rateFactor()).isEqualTo(52 / 240.0);
    }

    @Test
    void aScheduledWarmupStartsOnceADayAndEndsAtTheTenantsLimits() {
        SluiceRuntime r = runtime("02:00");
        clock.advance(Duration.ofSeconds(61));
        r.tick();
        for (int m = 0; m < 7; m++) {
            clock.advance(Duration.ofMinutes(1));
            r.tick();
        }

        assertThat(r.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.DONE);
        assertThat(rpm(r).rateFactor()).isEqualTo(1.0);
        clock.advance(Duration.ofMinutes(5));
        r.tick();
        assertThat(r.warmups().inspect("nightly").status()).as("not again the same day").isEqualTo(Warmup.Status.DONE);
    }

    @Test
    void onFirstTrafficItStartsAtTheTenantsFirstRequestAndAgainAfterAQuietSpell() {
        SluiceRuntime r = runtime("on_first_traffic");
        r.tick();
        assertThat(r.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.WAITING);

        r.warmups().onArrival("jobs");
        assertThat(r.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.WARMING);

        for (int m = 0; m < 8; m++) {
            clock.advance(Duration.ofMinutes(1));
            r.warmups().onArrival("jobs");
            r.tick();
        }
        assertThat(r.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.DONE);
        r.warmups().onArrival("jobs");
        assertThat(r.warmups().inspect("nightly").status()).as("still busy: no new warm-up").isEqualTo(Warmup.Status.DONE);

        clock.advance(Duration.ofMinutes(16));
        r.warmups().onArrival("jobs");
        assertThat(r.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.WARMING);
        assertThat(r.warmups().inspect("nightly").history()).extracting(WarmupDecision::action).filteredOn("started"::equals)
                .hasSize(2);
    }
}
