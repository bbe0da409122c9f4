package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.Mode;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.rollout.RolloutAnalysis;
import dev.sluice.runtime.rollout.RolloutRouting;
import dev.sluice.runtime.rollout.Rollouts;
import dev.sluice.runtime.routing.Headroom;
import dev.sluice.runtime.routing.RouteChoice;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three replicas (ids {@code a}, {@code b}, {@code c}) behind a round-robin proxy, sharing one
 * real Redis and one manual clock, route a profile whose whole traffic is in rollout to a target
 * with a growth ceiling of 60 requests a minute. The profile asks far more of each replica (one
 * request every round of 250 ms: 240 a minute each, 720 for the fleet) than the target may take.
 * Each round every replica takes its request, then each exchanges in turn, as
 * {@code RedisRolloutFigures} does every 250 ms in {@code sluice serve}.
 */
class FleetGrowthCeilingTest {

    private static final Duration EVERY = Duration.ofMillis(250);
    private static final long CEILING = 60;
    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              old: { kind: openai, base_url: "http://127.0.0.1:1" }
              new: { kind: openai, base_url: "http://127.0.0.1:2" }
            profiles: { chat: { deployment: old, model: gpt-4o } }
            rollouts:
              move: { profile: chat, to: new, steps: [100], interval: 1h, max_growth_per_minute: { rpm: 60 },
                      start: immediately }
            """, "ceiling.yaml", v -> null);

    @RegisterExtension
    final ClockedReplicas redis = new ClockedReplicas();
    private final FakeClock clock = redis.clock();

    private record Replica(RolloutRouting routing, RedisRolloutFigures figures) {}

    private Replica replica(String id) {
        RedisQuotaStore store = redis.store(id);
        Rollouts rollouts = new Rollouts(CONFIG, clock, d -> new RolloutAnalysis.TargetState(Mode.NORMAL, 1, Map.of()));
        rollouts.startConfigured();
        RedisRolloutFigures f = RedisRolloutFigures.manual(store, rollouts, EVERY);
        redis.own(f);
        RolloutRouting routing = new RolloutRouting(
                (plan, tried, headroom) -> new RouteChoice.To(CONFIG.deployments().get("old"), Optional.empty()),
                rollouts);
        return new Replica(routing, f);
    }

    private static boolean toTarget(Replica r, int n) {
        RequestPlan plan = new RequestPlan("trace" + n, "openai.chat", new Caller("o", "acme", "t", "k"),
                CONFIG.profiles().get("chat"), TrafficClass.INTERACTIVE, AdmissionRequest.NO_DEADLINE,
                new TokenEstimate(100, 100, 0, 100, 100, Tokenizer.O200K_BASE), false);
        RouteChoice c = r.routing().choose(plan, List.of(), Headroom.EVERYWHERE);
        return ((RouteChoice.To) c).deployment().id().equals("new");
    }

    @Test
    void theFleetsTargetTakesAtMostTheCeilingPlusTwoRoundsOfTheOtherReplicasSendsInAMinute() {
        List<Replica> fleet = List.of(replica("a"), replica("b"), replica("c"));
        long[] perMinute = new long[3];
        int n = 0;
        for (int round = 0; round < 3 * 240; round++) {
            if (round > 0) {
                clock.advance(EVERY);
            }
            int minute = round / 240;
            for (Replica r : fleet) {
                perMinute[minute] += toTarget(r, n++) ? 1 : 0;
            }
            for (Replica r : fleet) {
                r.figures().exchange();
            }
        }

        // The bound: what the two other replicas sent in the two rounds before the last request
        // taken, here one request each a round: 4. Alone, each replica would take 60 in minute 0.
        long bound = 2 * 2;
        assertThat(perMinute[0]).isBetween(CEILING, CEILING + bound);
        assertThat(perMinute[1]).isBetween(perMinute[0] + CEILING - bound, perMinute[0] + CEILING + bound);
        assertThat(perMinute[2]).isBetween(perMinute[1] + CEILING - bound, perMinute[1] + CEILING + bound);
        assertThat(perMinute).containsExactly(62, 124, 186);
    }
}
