package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.AdaptiveConfig;
import dev.sluice.adapt.AdaptiveController;
import dev.sluice.adapt.Mode;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.ramp.RampConfig;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalStatus;
import dev.sluice.store.BucketPlan;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three replicas, each its own governor, store connection, adaptive controller and fleet view, on
 * one real Redis and one manual clock (the stores pass the test clock's time with every call, so
 * Redis's own clock plays no part). The deployment runs 600 requests a minute with a burst of 10
 * (one second): one request costs 100 ms of it.
 */
class FleetViewTest {

    private static final long MS = 1_000_000L;
    private static final Duration EVERY = Duration.ofMillis(250);
    private static final Scope DEP = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep");
    private static final AdaptiveConfig NO_RAMP = AdaptiveConfig.defaults().withRamp(RampConfig.disabled());

    private final String ns = RedisTestSupport.namespace();
    private final FakeClock clock = new FakeClock();
    private final List<AutoCloseable> open = new ArrayList<>();
    private long ids;

    /** One replica of the fleet. */
    private record Replica(RedisQuotaStore store, QuotaGovernor governor, AdaptiveController adaptive, FleetView view) {}

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        RedisTestSupport.deleteNamespace(ns);
    }

    private Replica replica() {
        RedisQuotaStore store = RedisQuotaStore.connect(RedisTestSupport.URI,
                RedisTestSupport.config(ns).testClock(clock).dailyResetZone(ZoneOffset.UTC).build());
        open.add(store);
        QuotaGovernor g = new QuotaGovernor(GovernorConfig.builder()
                .scope(DEP, Limits.of(Limit.of(Dimension.REQUESTS, 600, 10))).build(), store, clock);
        AdaptiveController a = AdaptiveController.attach("dep", NO_RAMP, g, new SplittableRandom(1));
        FleetView v = FleetView.manual(store, g, d -> d.equals("dep") ? Optional.of(a) : Optional.empty(), EVERY);
        open.add(v);
        return new Replica(store, g, a, v);
    }

    private AdmissionRequest request(TrafficClass c) {
        return new AdmissionRequest("r" + (++ids), new RequestPath("org", "acme", "team", "key", "chat", "dep"),
                new Demand(0, 0, false), c, AdmissionRequest.NO_DEADLINE);
    }

    /** Takes the bucket's whole burst on {@code r}. */
    private void drain(Replica r) {
        for (int i = 0; i < 10; i++) {
            assertThat(r.governor().admit(request(TrafficClass.BATCH))).isInstanceOf(Decision.Admitted.class);
        }
    }

    private static void exchangeAll(Replica... replicas) {
        for (Replica r : replicas) {
            assertThat(r.view().exchange()).isTrue();
        }
    }

    @Test
    void aReplicaPredictsItsWaitOverTheWholeFleetsQueueNotJustItsOwn() {
        Replica a = replica();
        Replica b = replica();
        Replica c = replica();
        drain(a);
        for (int i = 0; i < 10; i++) {
            assertThat(a.governor().admit(request(TrafficClass.BATCH))).isInstanceOf(Decision.Queued.class);
        }
        exchangeAll(a, b, c);

        Decision d = b.governor().admit(request(TrafficClass.BATCH));

        // A holds ten requests (1 s) queued; B's own request follows them: 1.1 s, not B's own 0.1 s.
        assertThat(((Decision.Queued) d).expectedWaitNanos()).isEqualTo(1_100 * MS);
        assertThat(c.view().lastReading().others()).containsOnlyKeys(a.store().config().replicaId(),
                b.store().config().replicaId());
    }

    @Test
    void refillsAreSharedBetweenTheReplicasQueuesByTheirQueuedDemand() {
        Replica a = replica();
        Replica b = replica();
        Replica c = replica();
        Replica[] fleet = {a, b, c};
        drain(a);
        Map<Replica, List<Decision.Queued>> queued = new HashMap<>();
        for (Replica r : fleet) {
            List<Decision.Queued> q = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                q.add((Decision.Queued) r.governor().admit(request(TrafficClass.BATCH)));
            }
            queued.put(r, q);
        }
        // Everyone has published and read everyone.
        exchangeAll(fleet);
        exchangeAll(fleet);
        // Three seconds in 10 ms steps, the views exchanging every 250 ms, each replica's timer on time.
        for (int step = 1; step <= 300; step++) {
            clock.advanceMillis(10);
            if (step % 25 == 0) {
                exchangeAll(fleet);
            }
            for (Replica r : fleet) {
                if (r.governor().nextWakeupNanos() <= clock.nanos()) {
                    r.governor().onTimer();
                }
            }
        }
        int[] served = new int[3];
        for (int i = 0; i < 3; i++) {
            served[i] = (int) queued.get(fleet[i]).stream().filter(q -> q.outcome().toCompletableFuture().isDone()).count();
        }
        // 3 s of refill is 30 requests; equal queues take equal parts of it (one the side of a step).
        assertThat(served[0] + served[1] + served[2]).isBetween(26, 30);
        for (int s : served) {
            assertThat(s).isBetween(8, 11);
        }
    }

    @Test
    void theMostSevereModeAnyReplicaIsInAppliesOnEveryReplicaUntilItsPublicationGoesStale() {
        Replica a = replica();
        Replica b = replica();
        for (int i = 0; i < 3; i++) {
            a.adaptive().onSignal(new ProviderSignal(SignalStatus.RATE_LIMITED, 429, Optional.empty(),
                    OptionalLong.empty(), true, List.of(), ProviderSignal.REASON_RATE_LIMITED, 0), 0);
            clock.advanceMillis(1_000);
        }
        assertThat(a.adaptive().mode()).isEqualTo(Mode.LOAD_SHEDDING);
        exchangeAll(a, b);
        // An interactive caller on B: shedding there has someone to protect.
        b.adaptive().screen(TrafficClass.INTERACTIVE, clock.nanos());

        Decision d = b.governor().admit(request(TrafficClass.BATCH));

        assertThat(d).isInstanceOfSatisfying(Decision.Rejected.class,
                r -> assertThat(r.rejection().code()).isEqualTo("load_shedding_non_critical"));
        assertThat(b.adaptive().mode()).isEqualTo(Mode.NORMAL);
        // A stops publishing (killed): after three intervals B answers by its own mode again.
        clock.advanceNanos(EVERY.multipliedBy(3).toNanos());
        assertThat(b.view().exchange()).isTrue();
        assertThat(b.view().lastReading().others()).isEmpty();
        assertThat(b.adaptive().modeInForce(clock.nanos())).isEqualTo(Mode.NORMAL);
    }

    @Test
    void sheddingRefusesBatchOnEveryReplicaWhileAnInteractiveCallerAsksAnyOfThem() {
        Replica a = replica();
        Replica b = replica();
        Replica c = replica();
        for (int i = 0; i < 3; i++) {
            a.adaptive().onSignal(rateLimited(), 0);
            clock.advanceMillis(1_000);
        }
        assertThat(a.adaptive().mode()).isEqualTo(Mode.LOAD_SHEDDING);
        exchangeAll(a, b, c);
        // Shedding on B, taken from A, protects nobody yet: batch is paced in the fair queue.
        assertThat(b.adaptive().screen(TrafficClass.BATCH, clock.nanos())).isEmpty();

        // An interactive caller reaches C alone; C publishes it and A and B read it.
        c.adaptive().screen(TrafficClass.INTERACTIVE, clock.nanos());
        clock.advanceMillis(100);
        exchangeAll(c, b, a);

        assertThat(c.view().own().deployments().get("dep").protectedAskedAgoNanos()).isEqualTo(100 * MS);
        assertThat(b.view().lastReading().others().get(c.store().config().replicaId()).deployments().get("dep")
                .protectedAskedAgoNanos()).isEqualTo(100 * MS);
        assertThat(b.governor().admit(request(TrafficClass.BATCH))).isInstanceOfSatisfying(Decision.Rejected.class,
                r -> assertThat(r.rejection().code()).isEqualTo("load_shedding_non_critical"));
        // The shedding replica itself refuses it too, though no protected caller asked it.
        assertThat(a.governor().admit(request(TrafficClass.BATCH))).isInstanceOf(Decision.Rejected.class);
    }

    @Test
    void aPublicationOfAnEarlierBuildWithoutTheProtectedCallerReadsAsProtectingNobody() {
        Replica b = replica();
        // A replica of the build before: seven fields, shedding, nothing said of protected callers.
        b.store().link().callList(Library.Fn.FLEET, new byte[][] {Packing.key(b.store().keys().fleet())},
                b.store().clock(), "old", EVERY.multipliedBy(3).toNanos(),
                "v1\ndep\tload_shedding\t0 0 0 0\t-1\t-\t-\t5");
        exchangeAll(b);

        FleetView.DeploymentState old = b.view().lastReading().others().get("old").deployments().get("dep");
        assertThat(old.mode()).isEqualTo(Mode.LOAD_SHEDDING);
        assertThat(old.protectedAskedAgoNanos()).isEqualTo(dev.sluice.adapt.FleetAdaptive.NEVER);
        assertThat(b.adaptive().screen(TrafficClass.BATCH, clock.nanos())).isEmpty();
        // B's own interactive caller still counts, as on the earlier build.
        b.adaptive().screen(TrafficClass.INTERACTIVE, clock.nanos());
        assertThat(b.adaptive().screen(TrafficClass.BATCH, clock.nanos())).isPresent();
    }

    private static ProviderSignal rateLimited() {
        return new ProviderSignal(SignalStatus.RATE_LIMITED, 429, Optional.empty(), OptionalLong.empty(), true,
                List.of(), ProviderSignal.REASON_RATE_LIMITED, 0);
    }

    @Test
    void aReplicaSheddingBecauseAnotherIsShedsTheSameClassesAsThatOne() {
        Replica a = replica();
        Replica b = replica();
        // Three fresh refusals put A in load shedding; three more within ten seconds shed interactive too.
        for (int i = 0; i < 6; i++) {
            a.adaptive().onSignal(rateLimited(), 0);
            clock.advanceMillis(1_000);
        }
        a.adaptive().tick();
        assertThat(a.adaptive().published("a").shedDeep()).isTrue();
        exchangeAll(a, b);

        for (Replica r : List.of(a, b)) {
            assertThat(r.governor().admit(request(TrafficClass.INTERACTIVE))).isInstanceOfSatisfying(
                    Decision.Rejected.class, x -> assertThat(x.rejection().message())
                            .contains("only critical requests are served for now"));
            assertThat(r.adaptive().screen(TrafficClass.CRITICAL, clock.nanos())).isEmpty();
        }
        assertThat(b.adaptive().mode()).isEqualTo(Mode.NORMAL);
    }

    @Test
    void afterAnOverloadOneProbeGoesToTheProviderForTheWholeFleet() {
        Replica a = replica();
        Replica b = replica();
        Replica c = replica();
        a.adaptive().onSignal(new ProviderSignal(SignalStatus.OVERLOADED, 503, Optional.empty(),
                OptionalLong.of(3_600_000), true, List.of(), ProviderSignal.REASON_OVERLOADED, 0), 0);
        long startsIn = a.adaptive().published("a").probe().orElseThrow().startsInNanos();
        clock.advanceNanos(startsIn);
        exchangeAll(a, b, c);

        // Over the whole fleet, of nine requests one is the probe; the rest are told to retry.
        int admitted = 0;
        for (int i = 0; i < 3; i++) {
            for (Replica r : List.of(a, b, c)) {
                Decision d = r.governor().admit(request(TrafficClass.INTERACTIVE));
                if (d instanceof Decision.Admitted) {
                    admitted++;
                } else {
                    assertThat(d).isInstanceOfSatisfying(Decision.Rejected.class,
                            x -> assertThat(x.rejection().code()).isEqualTo("deployment_probing"));
                }
            }
        }
        assertThat(admitted).isOne();

        // The probe is answered: within one exchange every replica admits again.
        a.adaptive().onSignal(new ProviderSignal(SignalStatus.SUCCESS, 200, Optional.empty(), OptionalLong.empty(),
                true, List.of(), ProviderSignal.REASON_OK, 0), 100 * MS);
        exchangeAll(a, b, c);
        for (Replica r : List.of(a, b, c)) {
            assertThat(r.governor().admit(request(TrafficClass.INTERACTIVE))).isInstanceOf(Decision.Admitted.class);
        }
    }

    @Test
    void aCutReplicaRecoversByTheWholeFleetsSuccessesNotItsOwnAlone() {
        Replica a = replica();
        Replica b = replica();
        a.adaptive().onSignal(rateLimited(), 0);
        // Each has heard the other once (A's first exchange came before B had published).
        exchangeAll(a, b);
        exchangeAll(a, b);
        // B answers twenty requests; A hears of them at its next exchange after B's.
        for (int i = 0; i < 20; i++) {
            b.adaptive().onSignal(new ProviderSignal(SignalStatus.SUCCESS, 200, Optional.empty(), OptionalLong.empty(),
                    true, List.of(), ProviderSignal.REASON_OK, 0), 100 * MS);
        }
        exchangeAll(b, a);

        // 0.65 after the cut, then twenty steps of +0.03, capped at 1: the fleet's factor is whole again.
        assertThat(a.adaptive().snapshot().multipliers().get(Dimension.REQUESTS)).isEqualTo(1.0);
        assertThat(a.store().state(BucketPlan.of(DEP, Limits.of(Limit.of(Dimension.REQUESTS, 600, 10))))
                .of(Dimension.REQUESTS).orElseThrow().rateFactor()).isEqualTo(1.0);
    }

    @Test
    void aReplicaThatLeavesCleanlyStopsCountingAtOnce() {
        Replica a = replica();
        Replica b = replica();
        drain(a);
        a.governor().admit(request(TrafficClass.BATCH));
        exchangeAll(a, b);
        assertThat(b.view().lastReading().others()).hasSize(1);

        a.view().close();
        b.view().exchange();

        assertThat(b.view().lastReading().others()).isEmpty();
        // Nothing queued in the fleet but B's own request: it waits only for its own refill.
        Decision.Queued q = (Decision.Queued) b.governor().admit(request(TrafficClass.BATCH));
        assertThat(q.expectedWaitNanos()).isEqualTo(100 * MS);
    }

    @Test
    void aReplicaKilledMidRunStopsCountingWithinThreeIntervalsAndLeavesNoLeaseBehind() {
        Replica a = replica();
        Replica b = replica();
        FleetHeartbeat aBeat = FleetHeartbeat.manual(a.store(), EVERY);
        FleetHeartbeat bBeat = FleetHeartbeat.manual(b.store(), EVERY);
        aBeat.beat();
        assertThat(bBeat.beat()).isEqualTo(2);
        // A holds the burst in ten unsettled requests and queues ten more (1 s of the rate).
        drain(a);
        for (int i = 0; i < 10; i++) {
            assertThat(a.governor().admit(request(TrafficClass.BATCH))).isInstanceOf(Decision.Queued.class);
        }
        exchangeAll(a, b);
        assertThat(b.store().openLeases()).isEqualTo(10);
        assertThat(((Decision.Queued) b.governor().admit(request(TrafficClass.BATCH))).expectedWaitNanos())
                .isEqualTo(1_100 * MS);

        // A is killed: no exchange, no beat, no settlement, nothing withdrawn. Until its publication's
        // three intervals are over, B still counts A's queue.
        clock.advanceMillis(700);
        assertThat(b.view().exchange()).isTrue();
        assertThat(b.view().lastReading().others()).containsOnlyKeys(a.store().config().replicaId());
        clock.advanceMillis(50);
        assertThat(b.view().exchange()).isTrue();
        assertThat(bBeat.beat()).isEqualTo(1);

        assertThat(b.view().lastReading().others()).isEmpty();
        // Nothing of A's counts any more: B's next request takes the 750 ms of refill instead of
        // queuing behind A's dead second of work, as it did while A's publication was fresh.
        assertThat(b.governor().admit(request(TrafficClass.BATCH))).isInstanceOf(Decision.Admitted.class);
        // A's ten leases end at their TTL, swept by B (with B's own two, which this test never settles).
        assertThat(b.store().openLeases()).isEqualTo(12);
        clock.advance(GovernorConfig.DEFAULT_LEASE_TTL);
        assertThat(b.store().expireLeases()).isEqualTo(12);
        assertThat(b.store().openLeases()).isZero();
    }

    @Test
    void aCutByAnyReplicaHoldsWhileFreshAndAnotherReplicasRaiseOrStartDoesNotUndoIt() {
        Replica a = replica();
        Replica b = replica();
        BucketPlan plan = BucketPlan.of(DEP, Limits.of(Limit.of(Dimension.REQUESTS, 600, 10)));
        a.store().control(plan, Dimension.REQUESTS, 0.2, 5_000 * MS);

        // B starts (or recovers) and says factor 1, no pause: the fleet keeps A's cut and pause.
        b.store().control(plan, Dimension.REQUESTS, 1.0, 0);
        var s = b.store().state(plan).of(Dimension.REQUESTS).orElseThrow();
        assertThat(s.rateFactor()).isEqualTo(0.2);
        assertThat(s.pausedForNanos()).isEqualTo(5_000 * MS);

        // A raises its own cut: the lowest fresh proposal is now A's 0.5.
        a.store().control(plan, Dimension.REQUESTS, 0.5, 0);
        assertThat(a.store().state(plan).of(Dimension.REQUESTS).orElseThrow().rateFactor()).isEqualTo(0.5);

        // A falls silent: its proposal counts for 60 s after its last word, then B's own stands.
        clock.advanceNanos(RedisQuotaStore.CONTROL_FRESH_FOR.toNanos());
        b.store().control(plan, Dimension.REQUESTS, 1.0, 0);
        assertThat(b.store().state(plan).of(Dimension.REQUESTS).orElseThrow().rateFactor()).isEqualTo(1.0);
    }
}
