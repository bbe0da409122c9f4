package dev.sluice.runtime.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.Mode;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.routing.Headroom;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import dev.sluice.runtime.rollout.RolloutDecision.Action;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Two replicas judging one rollout on the fleet's figures: each publishes its interval's tally,
 * the lower replica id adds them up and decides alone. The exchange is done by hand here (the
 * Redis one is RolloutFleetFiguresTest in store-redis). The rollout needs 20 attempts to judge
 * and allows 5% provider 429s.
 */
class RolloutFleetTest {

    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              old: { kind: openai, base_url: "http://127.0.0.1:1" }
              new: { kind: openai, base_url: "http://127.0.0.1:2" }
            profiles: { chat: { deployment: old, model: gpt-4o } }
            rollouts:
              move: { profile: chat, to: new, steps: [10, 50, 100], interval: 1m, min_requests: 20,
                      thresholds: { provider_429_rate: 0.05 }, start: immediately }
            """, "fleet.yaml", v -> null);
    private static final Rollouts.TargetStates ROOM =
            d -> new RolloutAnalysis.TargetState(Mode.NORMAL, 1, Map.of());

    private final FakeClock clock = new FakeClock();
    private final Rollouts a = replica();
    private final Rollouts b = replica();
    private final List<RolloutDecision> madeByB = new ArrayList<>();

    RolloutFleetTest() {
        b.onDecision(madeByB::add);
    }

    private Rollouts replica() {
        Rollouts r = new Rollouts(CONFIG, clock, ROOM);
        r.judgedByFleet(true);
        r.startConfigured();
        return r;
    }

    private static void attempts(Rollouts r, int answered, int throttled, long latencyMillis) {
        for (int i = 0; i < answered + throttled; i++) {
            AttemptResult result = i < answered ? AttemptResult.ANSWERED : AttemptResult.THROTTLED;
            r.onAttempt(new AttemptEvent("t" + i, 1, "new", "openai", "gpt-4o", Map.of(), 0, result,
                    result == AttemptResult.ANSWERED ? 200 : 429, "ok", Optional.empty(), OptionalLong.empty(),
                    new TokenCounts(100, 100, 0), new TokenCounts(100, 100, 0), true, true, Settlement.SETTLED,
                    latencyMillis * 1_000_000, OptionalLong.empty(), OptionalLong.empty()));
        }
    }

    /** One exchange: each replica publishes, then each judges what it decides, a first. */
    private List<RolloutDecision> exchange() {
        List<Rollouts.Published> ofA = a.published();
        List<Rollouts.Published> ofB = b.published();
        List<RolloutDecision> out = new ArrayList<>(RolloutFleet.round(a, "a", ofA,
                Map.of("b", RolloutFleet.publication(ofB, b.sent()))));
        out.addAll(RolloutFleet.round(b, "b", ofB, Map.of("a", RolloutFleet.publication(ofA, a.sent()))));
        return out;
    }

    @Test
    void twoReplicasTooQuietAloneAdvanceOnTheirSum() {
        attempts(a, 15, 0, 100);
        attempts(b, 15, 0, 100);
        clock.advance(Duration.ofMinutes(1));

        List<RolloutDecision> made = exchange();

        assertThat(made).hasSize(1);
        assertThat(made.get(0).action()).isEqualTo(Action.ADVANCED);
        assertThat(made.get(0).figures().orElseThrow().attempts()).isEqualTo(30);
        assertThat(a.inspect("move").percent()).isEqualTo(50);
        assertThat(madeByB).as("the higher id never decides while the lower one publishes").isEmpty();
    }

    @Test
    void aBreachOnOneReplicaIsJudgedInTheFleetsRateAtOnce() {
        attempts(a, 12, 0, 100);
        attempts(b, 9, 3, 100);

        List<RolloutDecision> made = exchange();

        // 3 of 24 attempts is 12.5%: a breach before the interval ends; b alone had too few to judge.
        assertThat(made).hasSize(1);
        assertThat(made.get(0).action()).isEqualTo(Action.PAUSED);
        assertThat(made.get(0).reason()).startsWith("provider_429_rate 0.125 above 0.05");
        assertThat(made.get(0).figures().orElseThrow().throttled()).isEqualTo(3);
    }

    @Test
    void theFleetsP95IsReadFromTheMergedLatencies() {
        attempts(a, 40, 0, 100);
        attempts(b, 2, 0, 5_000);
        clock.advance(Duration.ofMinutes(1));

        RolloutDecision d = exchange().get(0);

        // 42 answers, 2 of them slow: the 95th percentile (the 40th) is a fast one's 100 ms, where
        // b's own p95 is 5 s (the larger of the two, or their mean, would breach nothing but mislead).
        assertThat(d.figures().orElseThrow().p95LatencyNanos().getAsLong() / 1_000_000).isBetween(99L, 101L);
        assertThat(d.figures().orElseThrow().requests()).isZero();
    }

    @Test
    void aReplicaAtAnotherVersionIsLeftOutOfTheSum() {
        attempts(a, 10, 0, 100);
        attempts(b, 15, 0, 100);
        b.advance("move", "ops"); // b moved on (its version is ahead until a reads the decision)
        clock.advance(Duration.ofMinutes(1));

        List<RolloutDecision> made = RolloutFleet.round(a, "a", a.published(),
                Map.of("b", RolloutFleet.publication(b.published(), b.sent())));

        assertThat(made.get(0).action()).isEqualTo(Action.HELD);
        assertThat(made.get(0).reason()).isEqualTo("inconclusive: 10 attempts on the target, 20 needed");
    }

    @Test
    void whenTheLowerIdStopsPublishingTheNextDecides() {
        attempts(b, 25, 0, 100);
        clock.advance(Duration.ofMinutes(1));

        List<RolloutDecision> made = RolloutFleet.round(b, "b", b.published(), Map.of());

        assertThat(made).extracting(RolloutDecision::action).containsExactly(Action.ADVANCED);
    }

    @Test
    void aTallyReadsBackAsItWasWritten() {
        attempts(a, 7, 2, 250);
        IntervalTally t = a.published().get(0).tally();

        IntervalTally back = IntervalTally.decode(t.encode());

        assertThat(back).isEqualTo(t);
        assertThat(back.figures()).isEqualTo(t.figures());
        assertThat(IntervalTally.decode(IntervalTally.none().encode())).isEqualTo(IntervalTally.none());
    }

    @Test
    void judgedLocallyTheTickDecidesAndJudgedByTheFleetItDoesNot() {
        attempts(a, 25, 0, 100);
        clock.advance(Duration.ofMinutes(1));
        a.tick();
        assertThat(a.inspect("move").percent()).as("judged by the fleet: the tick leaves it").isEqualTo(10);

        a.judgedByFleet(false);
        a.tick();
        assertThat(a.inspect("move").percent()).isEqualTo(50);
    }

    private static final SluiceConfig CEILING = ConfigLoader.parse("""
            deployments:
              old: { kind: openai, base_url: "http://127.0.0.1:1" }
              new: { kind: openai, base_url: "http://127.0.0.1:2" }
            profiles: { chat: { deployment: old, model: gpt-4o } }
            rollouts:
              move: { profile: chat, to: new, steps: [100], interval: 1h, max_growth_per_minute: { rpm: 10 },
                      start: immediately }
            """, "ceiling.yaml", v -> null);

    /** Of {@code n} first attempts on {@code r}, how many ran on the target. */
    private static int onTarget(Rollouts r, int n) {
        int out = 0;
        for (int i = 0; i < n; i++) {
            RequestPlan plan = new RequestPlan("trace" + i, "openai.chat", new Caller("o", "acme", "t", "k"),
                    CEILING.profiles().get("chat"), TrafficClass.INTERACTIVE, AdmissionRequest.NO_DEADLINE,
                    new TokenEstimate(100, 100, 0, 100, 100, Tokenizer.O200K_BASE), false);
            out += r.targetFor(plan, Headroom.EVERYWHERE).isPresent() ? 1 : 0;
        }
        return out;
    }

    @Test
    void theGrowthCeilingIsTheFleetsOnceTheReplicasExchange() {
        Rollouts one = new Rollouts(CEILING, clock, ROOM);
        Rollouts two = new Rollouts(CEILING, clock, ROOM);
        one.startConfigured();
        two.startConfigured();

        int first = onTarget(one, 6);
        RolloutFleet.round(two, "b", two.published(), Map.of("a", RolloutFleet.publication(one.published(), one.sent())));
        int second = onTarget(two, 20);
        RolloutFleet.round(one, "a", one.published(), Map.of("b", RolloutFleet.publication(two.published(), two.sent())));
        int third = onTarget(one, 20);

        // 10 a minute for the fleet, from a quiet start: 6 on one replica, the 4 left on the other
        assertThat(first).isEqualTo(6);
        assertThat(second).isEqualTo(4);
        assertThat(third).isZero();

        clock.advance(Duration.ofMinutes(1));
        RolloutFleet.round(two, "b", two.published(), Map.of("a", RolloutFleet.publication(one.published(), one.sent())));
        // minute 1: the fleet's 10 of minute 0 plus 10, of which this replica takes them all
        assertThat(onTarget(two, 30)).isEqualTo(20);
    }

    @Test
    void aPublicationWithoutSendsLinesIsReadByThisBuildAndOneWithThemByTheLast() {
        String withSends = RolloutFleet.publication(a.published(),
                List.of(new Rollouts.Sent("move", 7, new RolloutAnalysis.Demand(3, 300, 30),
                        new RolloutAnalysis.Demand(1, 100, 10))));

        assertThat(RolloutFleet.parseSent(withSends)).containsOnlyKeys("move");
        assertThat(RolloutFleet.parseSent(withSends).get("move").thisMinute()).isEqualTo(new RolloutAnalysis.Demand(3, 300, 30));
        assertThat(RolloutFleet.parse(withSends)).as("the rollout's own line is read as before").containsOnlyKeys("move");
        assertThat(withSends.lines().skip(2).findFirst().orElseThrow().split("\t"))
                .as("five fields: the last build, which reads lines of four, skips it").hasSize(5);
        assertThat(RolloutFleet.parseSent(RolloutFleet.publication(a.published(), List.of()))).isEmpty();
    }
}
