package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.GovernorInvariants;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.governor.Usage;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The controller calls the governor while holding its state lock, and the governor calls the
 * controller's guard while holding its lane locks: this drives both from several threads at once
 * and must finish (no deadlock) with every bucket conserved. Bounded: 4 threads x 2,000 steps.
 */
class ConcurrencyTest {

    private static final Scope SCOPE = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep");

    @Test
    void signalsTicksAndAdmissionsFromManyThreadsNeverDeadlock() {
        FakeClock clock = new FakeClock();
        Limits limits = Limits.of(Limit.of(Dimension.REQUESTS, 600), Limit.of(Dimension.TOTAL_TOKENS, 100_000));
        QuotaGovernor g = GovernorInvariants.track(new QuotaGovernor(GovernorConfig.builder().scope(SCOPE, limits).build(),
                new InMemoryQuotaStore(clock, ZoneOffset.UTC), clock));
        AdaptiveControllers all = new AdaptiveControllers(g, d -> AdaptiveConfig.defaults()
                .withClientThrottle(ClientThrottleConfig.defaults().enable()), 11);
        g.addListener(all);
        AdaptiveController c = all.controller("dep");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    long seed = t;
                    done.add(pool.submit(() -> work(g, c, all, new SplittableRandom(seed))));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
        });
        for (BucketState.DimensionState d : g.bucket(SCOPE).orElseThrow().dimensions()) {
            assertThat(d.conserved()).isTrue();
        }
    }

    private static void work(QuotaGovernor g, AdaptiveController c, AdaptiveControllers all, SplittableRandom r) {
        RequestPath path = new RequestPath("org", "tenant", "team", "key", "profile", "dep");
        for (int i = 0; i < 2_000; i++) {
            switch (r.nextInt(6)) {
                case 0, 1 -> {
                    TrafficClass tc = TrafficClass.values()[r.nextInt(5)];
                    Decision d = g.admit(new AdmissionRequest("r", path, new Demand(100, 100, false), tc,
                            AdmissionRequest.NO_DEADLINE));
                    if (d instanceof Decision.Admitted a) {
                        a.reservation().settle(new Usage(100, 100));
                    } else if (d instanceof Decision.Queued q) {
                        q.outcome().thenAccept(f -> {
                            if (f instanceof Decision.Admitted a) {
                                a.reservation().release();
                            }
                        });
                    }
                }
                case 2 -> c.onSignal(r.nextBoolean() ? Signals.success() : Signals.limited(), r.nextLong(0, 1_000_000_000L));
                case 3 -> all.tick();
                case 4 -> g.onTimer();
                default -> c.snapshot();
            }
        }
    }
}
