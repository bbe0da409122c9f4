package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.Mode;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import dev.sluice.runtime.rollout.RolloutAnalysis;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutDecision.Action;
import dev.sluice.runtime.rollout.Rollouts;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two replicas (a store connection and rollouts each, replica ids {@code a} and {@code b}) on one
 * real Redis and one manual clock: each interval is judged once, by {@code a}, on both replicas'
 * attempts. The rollout needs 20 attempts on its target to judge and allows 5% provider 429s.
 */
class RedisRolloutFiguresTest {

    private static final Duration EVERY = Duration.ofMillis(250);
    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              old: { kind: openai, base_url: "http://127.0.0.1:1" }
              new: { kind: openai, base_url: "http://127.0.0.1:2" }
            profiles: { chat: { deployment: old, model: gpt-4o } }
            rollouts:
              move: { profile: chat, to: new, steps: [10, 50, 100], interval: 1m, min_requests: 20,
                      thresholds: { provider_429_rate: 0.05 }, start: immediately }
            """, "fleet.yaml", v -> null);

    @RegisterExtension
    final ClockedReplicas redis = new ClockedReplicas();
    private final FakeClock clock = redis.clock();

    private record Replica(Rollouts rollouts, RedisRolloutFigures figures, List<RolloutDecision> made) {}

    private Replica replica(String id) {
        RedisQuotaStore store = redis.store(id);
        Rollouts rollouts = new Rollouts(CONFIG, clock, d -> new RolloutAnalysis.TargetState(Mode.NORMAL, 1, Map.of()));
        rollouts.startConfigured();
        List<RolloutDecision> made = new ArrayList<>();
        rollouts.onDecision(made::add);
        RedisRolloutFigures f = RedisRolloutFigures.manual(store, rollouts, EVERY);
        redis.own(f);
        return new Replica(rollouts, f, made);
    }

    private static void attempts(Rollouts r, int answered, int throttled) {
        for (int i = 0; i < answered + throttled; i++) {
            AttemptResult result = i < answered ? AttemptResult.ANSWERED : AttemptResult.THROTTLED;
            r.onAttempt(new AttemptEvent("t" + i, 1, "new", "openai", "gpt-4o", Map.of(), 0, result,
                    result == AttemptResult.ANSWERED ? 200 : 429, "ok", Optional.empty(), OptionalLong.empty(),
                    new TokenCounts(100, 100, 0), new TokenCounts(100, 100, 0), true, true, Settlement.SETTLED,
                    100_000_000L, OptionalLong.empty(), OptionalLong.empty()));
        }
    }

    /** Rounds every 250 ms for {@code span} (the first at once), each replica exchanging in turn; the decisions made. */
    private List<RolloutDecision> rounds(Duration span, Replica... replicas) {
        List<RolloutDecision> made = new ArrayList<>();
        for (long t = 0; t <= span.toMillis(); t += EVERY.toMillis()) {
            if (t > 0) {
                clock.advance(EVERY);
            }
            for (Replica r : replicas) {
                made.addAll(r.figures().exchange());
                r.rollouts().tick();
            }
        }
        return made;
    }

    @Test
    void anIntervalIsJudgedOnceOnBothReplicasAttempts() {
        Replica a = replica("a");
        Replica b = replica("b");
        attempts(a.rollouts(), 15, 0);
        attempts(b.rollouts(), 15, 0);

        List<RolloutDecision> made = rounds(Duration.ofMinutes(1), a, b);

        assertThat(made).extracting(RolloutDecision::action).containsExactly(Action.ADVANCED);
        assertThat(made.get(0).figures().orElseThrow().attempts()).isEqualTo(30);
        assertThat(a.made()).isEqualTo(made);
        assertThat(b.made()).as("neither b's exchange nor its tick decides").isEmpty();
        assertThat(a.rollouts().inspect("move").percent()).isEqualTo(50);
    }

    @Test
    void aBreachSpreadOverTwoReplicasPausesTheRolloutAtOnce() {
        Replica a = replica("a");
        Replica b = replica("b");
        attempts(a.rollouts(), 12, 0);
        attempts(b.rollouts(), 9, 3);
        b.figures().exchange();

        List<RolloutDecision> byA = a.figures().exchange();

        assertThat(byA).extracting(RolloutDecision::action).containsExactly(Action.PAUSED);
        assertThat(byA.get(0).reason()).startsWith("provider_429_rate 0.125 above 0.05");
    }

    @Test
    void whenTheDecidingReplicaLeavesTheNextDecides() {
        Replica a = replica("a");
        Replica b = replica("b");
        attempts(b.rollouts(), 25, 0);
        assertThat(rounds(Duration.ofMillis(59_750), a, b)).isEmpty();

        a.figures().close();
        clock.advance(EVERY);

        assertThat(b.figures().exchange()).extracting(RolloutDecision::action).containsExactly(Action.ADVANCED);
    }

    @Test
    void aReplicaThatStopsWithoutAWordDecidesNoMoreOnceItsTallyIsStale() {
        Replica a = replica("a");
        Replica b = replica("b");
        attempts(b.rollouts(), 25, 0);
        assertThat(rounds(Duration.ofMillis(59_750), a, b)).isEmpty();

        // a's last tally (at 59.75 s) is fresh for three rounds: b waits on it until 60.5 s.
        clock.advance(EVERY);
        assertThat(b.figures().exchange()).as("60 s").isEmpty();
        clock.advance(EVERY);
        assertThat(b.figures().exchange()).as("60.25 s").isEmpty();
        clock.advance(EVERY);
        assertThat(b.figures().exchange()).extracting(RolloutDecision::action).containsExactly(Action.ADVANCED);
    }
}
