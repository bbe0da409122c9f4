package dev.sluice.governor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Invariants that must hold for any sequence of arrivals, settlements and passing time. */
class GovernorPropertiesTest {

    private static final String[] TENANTS = {"a", "b", "c"};

    /** One step of a random run: a request arrives (then maybe settles), after some time passes. */
    record Step(int tenant, long inputTokens, TrafficClass trafficClass, long advanceMillis, int settleMode,
            long deadlineMillis) {}

    @Provide
    Arbitrary<List<Step>> runs() {
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.integers().between(0, TENANTS.length - 1),
                Arbitraries.longs().between(0, 1_500),
                Arbitraries.of(TrafficClass.class),
                Arbitraries.longs().between(0, 700),
                Arbitraries.integers().between(0, 3),
                Arbitraries.longs().between(0, 3_000)).as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(120);
    }

    private static GovernorFixture fixture() {
        GovernorConfig.Builder b = GovernorConfig.builder()
                .scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep"), Limits.of(
                        Limit.of(Dimension.REQUESTS, 120, 5), Limit.of(Dimension.INPUT_TOKENS, 12_000, 3_000),
                        Limit.of(Dimension.CONCURRENT_REQUESTS, 4)))
                .scope(Scope.of(ScopeLevel.TENANT, "a"), new ScopeSettings(Limits.of(Limit.of(Dimension.INPUT_TOKENS,
                        6_000, 2_000)), 2, Limits.none()))
                .scope(Scope.of(ScopeLevel.TENANT, "b"), ScopeSettings.weighted(Limits.of(
                        Limit.of(Dimension.REQUESTS, 60, 3)), 1))
                .scope(Scope.of(ScopeLevel.API_KEY, "c-key"), ScopeSettings.of(Limits.of(
                        Limit.of(Dimension.DAILY_TOKENS, 20_000))));
        for (TrafficClass c : TrafficClass.values()) {
            b.classPolicy(c, new ClassPolicy(Duration.ofMillis(100L + 400L * c.ordinal()), 20));
        }
        return new GovernorFixture(b.leaseTtl(Duration.ofSeconds(20)).build());
    }

    /** Runs the steps; returns what happened. Settles with the estimate, so no refunds confuse the window sums. */
    private static Run run(List<Step> steps, boolean exactUsage) {
        GovernorFixture f = fixture();
        Run run = new Run(f);
        List<Reservation> open = new ArrayList<>();
        for (Step s : steps) {
            String tenant = TENANTS[s.tenant()];
            long deadline = s.deadlineMillis() == 0 ? AdmissionRequest.NO_DEADLINE
                    : f.clock.nanos() + s.deadlineMillis() * 1_000_000L;
            AdmissionRequest req = new AdmissionRequest("r" + run.arrivals, GovernorFixture.path(tenant),
                    new Demand(s.inputTokens(), 0, false), s.trafficClass(), deadline);
            run.arrivals++;
            Map<String, BucketState> before = run.states();
            Decision d = f.governor.admit(req);
            switch (d) {
                case Decision.Admitted a -> run.admitted(a, open);
                case Decision.Rejected r -> {
                    run.rejected++;
                    assertThat(run.states()).as("a rejection changes no bucket").isEqualTo(before);
                }
                case Decision.Queued q -> {
                    long giveUp = Math.min(deadline, f.clock.nanos()
                            + f.governor.config().classes().get(s.trafficClass()).maxQueueWait().toNanos());
                    CompletableFuture<Decision.Final> future = q.outcome().toCompletableFuture();
                    run.queued.add(future);
                    future.thenAccept(x -> {
                        assertThat(f.clock.nanos()).as("answered by its deadline").isLessThanOrEqualTo(giveUp);
                        if (x instanceof Decision.Admitted a) {
                            run.admitted(a, open);
                        } else {
                            run.rejected++;
                        }
                    });
                }
            }
            if (!open.isEmpty() && s.settleMode() > 0) {
                Reservation r = open.remove(s.settleMode() % open.size());
                long in = r.request().demand().inputTokens();
                if (exactUsage || s.settleMode() == 1) {
                    r.settle(new Usage(in, 0));
                } else if (s.settleMode() == 2) {
                    r.settle(new Usage(in / 2, 7));
                } else {
                    r.release();
                }
            }
            run.advance(s.advanceMillis());
            run.checkConservation();
        }
        run.advance(Duration.ofMinutes(5).toMillis());
        return run;
    }

    @Property(tries = 200)
    void noBucketEverAdmitsMoreThanRateTimesWindowPlusBurst(@ForAll("runs") List<Step> steps) {
        Run run = run(steps, true);
        checkWindows(run, "deployment:dep", Dimension.INPUT_TOKENS, 12_000, 3_000);
        checkWindows(run, "deployment:dep", Dimension.REQUESTS, 120, 5);
        checkWindows(run, "tenant:a", Dimension.INPUT_TOKENS, 6_000, 2_000);
        checkWindows(run, "tenant:b", Dimension.REQUESTS, 60, 3);
    }

    @Property(tries = 200)
    void everyBucketConservesWhatItReserved(@ForAll("runs") List<Step> steps) {
        Run run = run(steps, false);
        run.checkConservation();
    }

    @Property(tries = 200)
    void everyQueuedRequestEndsAdmittedOrRejectedByItsDeadline(@ForAll("runs") List<Step> steps) {
        Run run = run(steps, false);
        assertThat(run.queued).allMatch(CompletableFuture::isDone);
        assertThat(run.admittedCount + run.rejected).isEqualTo(run.arrivals);
    }

    private static void checkWindows(Run run, String key, Dimension d, long perMinute, long burst) {
        List<long[]> events = run.admissions.getOrDefault(key + "/" + d, List.of());
        for (int i = 0; i < events.size(); i++) {
            long sum = 0;
            for (int j = i; j < events.size(); j++) {
                sum += events.get(j)[1];
                double window = (events.get(j)[0] - events.get(i)[0]) / 60e9;
                assertThat((double) sum).as("%s %s admitted over a window of %.3f min", key, d, window)
                        .isLessThanOrEqualTo(perMinute * window + burst + 1e-6);
            }
        }
    }

    /** The record of one run. */
    private static final class Run {
        final GovernorFixture f;
        final Map<String, List<long[]>> admissions = new HashMap<>();
        final List<CompletableFuture<Decision.Final>> queued = new ArrayList<>();
        long arrivals;
        long admittedCount;
        long rejected;

        Run(GovernorFixture f) {
            this.f = f;
        }

        void admitted(Decision.Admitted a, List<Reservation> open) {
            admittedCount++;
            open.add(a.reservation());
            AdmissionRequest r = a.reservation().request();
            record("deployment:dep", Dimension.INPUT_TOKENS, r.demand().inputTokens());
            record("deployment:dep", Dimension.REQUESTS, 1);
            if (r.path().tenant().equals("a")) {
                record("tenant:a", Dimension.INPUT_TOKENS, r.demand().inputTokens());
            }
            if (r.path().tenant().equals("b")) {
                record("tenant:b", Dimension.REQUESTS, 1);
            }
        }

        private void record(String key, Dimension d, long amount) {
            admissions.computeIfAbsent(key + "/" + d, k -> new ArrayList<>()).add(new long[] {f.clock.nanos(), amount});
        }

        /** Moves time forward, waking the governor at every time it asked for on the way. */
        void advance(long millis) {
            long target = f.clock.nanos() + millis * 1_000_000L;
            while (true) {
                long wake = f.governor.nextWakeupNanos();
                if (wake > target) {
                    break;
                }
                f.clock.setNanos(Math.max(wake, f.clock.nanos()));
                f.governor.onTimer();
            }
            f.clock.setNanos(target);
            f.governor.onTimer();
        }

        /** Every bucket's state, with levels rounded to a millionth of a token (a give-back is float arithmetic). */
        Map<String, BucketState> states() {
            Map<String, BucketState> m = new HashMap<>();
            for (BucketState s : f.governor.snapshot().buckets()) {
                List<BucketState.DimensionState> dims = new ArrayList<>();
                for (BucketState.DimensionState d : s.dimensions()) {
                    dims.add(new BucketState.DimensionState(d.dimension(), Math.round(d.available() * 1e6) / 1e6,
                            d.capacity(), d.rateFactor(), d.pausedForNanos(), d.reserved(), d.settled(), d.refunded(),
                            d.expired(), d.open(), d.overage()));
                }
                m.put(s.key(), new BucketState(s.key(), dims));
            }
            return m;
        }

        void checkConservation() {
            GovernorInvariants.verify(f.governor);
            for (BucketState s : f.governor.snapshot().buckets()) {
                for (BucketState.DimensionState d : s.dimensions()) {
                    assertThat(d.open()).isGreaterThanOrEqualTo(0);
                }
            }
            Optional<BucketState> dep = f.governor.bucket(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep"));
            assertThat(dep.orElseThrow().of(Dimension.CONCURRENT_REQUESTS).orElseThrow().available())
                    .isBetween(0.0, 4.0);
        }
    }
}
