package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.governor.Usage;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import dev.sluice.runtime.rollout.WarmupDecision;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A tenant's warm-up on three replicas (runtimes with a store connection each, ids {@code a},
 * {@code b}, {@code c}) sharing one real Redis in exact mode and one manual clock: the tenant's
 * bucket is the fleet's, and so is the rate the warm-up paces it at (the bucket's factor, the
 * lowest fresh proposal of the replicas, docs/REDIS.md). The tenant asks for 30 requests a second
 * (10 on each replica) against a warm-up from 12 a minute, growing 40 a minute to its limit of 240.
 * A minute needs 10 attempts to be judged; a provider 429 rate above 1% pauses growth.
 */
class WarmupOnRedisTest {

    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            warmups:
              nightly: { tenant: jobs, start: "02:00", duration: 1h, initial: { rpm: 12 }, max_growth_per_minute: { rpm: 40 },
                         min_requests: 10, thresholds: { provider_429_rate: 0.01 } }
            orgs:
              o: { tenants: { jobs: { limits: { rpm: 240 } } } }
            """, "warmups.yaml", v -> null);
    private static final RequestPath PATH = new RequestPath("o", "jobs", "t", "k", "p", "d");

    @RegisterExtension
    final ClockedReplicas redis = new ClockedReplicas(Instant.parse("2026-12-03T01:59:00Z"));
    private final FakeClock clock = redis.clock();
    /** Each replica's store connection, in the order of {@link #replica}. */
    private final List<RedisQuotaStore> stores = new ArrayList<>();
    private int next;

    private SluiceRuntime replica(String id) {
        RedisQuotaStore s = redis.store(id);
        stores.add(s);
        return SluiceRuntime.builder(CONFIG, s).clock(clock).adaptive(false).build();
    }

    /** Requests admitted at once over {@code steps} steps of 100 ms, one per replica a step, a tick after each. */
    private int admitted(List<SluiceRuntime> fleet, int steps) {
        int out = 0;
        for (int step = 0; step < steps; step++) {
            for (SluiceRuntime r : fleet) {
                Decision d = r.governor().admit(new AdmissionRequest("r" + (++next), PATH, new Demand(10, 10, false),
                        TrafficClass.BATCH, clock.nanos() + 1));
                if (d instanceof Decision.Admitted a) {
                    out++;
                    a.reservation().settle(new Usage(10, 10));
                }
            }
            clock.advance(Duration.ofMillis(100));
            fleet.forEach(SluiceRuntime::tick);
        }
        return out;
    }

    @Test
    void theFleetIsPacedAtTheWarmupsRateNotEachReplica() {
        List<SluiceRuntime> fleet = List.of(replica("a"), replica("b"), replica("c"));
        clock.advance(Duration.ofSeconds(60));
        fleet.forEach(SluiceRuntime::tick);
        assertThat(fleet).allSatisfy(r -> assertThat(r.warmups().inspect("nightly").rates()).containsValue(12L));

        // First minute: one second's worth (0.2) and 12 a minute: 12 for the fleet (36 with a bucket per replica).
        int first = admitted(fleet, 600);
        assertThat(fleet).allSatisfy(r -> assertThat(r.warmups().inspect("nightly").rates()).containsValue(52L));
        // Second minute at 52 a minute, from an empty bucket.
        int second = admitted(fleet, 600);

        assertThat(first).isEqualTo(12);
        assertThat(second).isEqualTo(52);
    }

    /** {@code answered} attempts of the tenant answered, then {@code throttled} refused by the provider, as {@code r} reports them. */
    private void attempts(SluiceRuntime r, int answered, int throttled) {
        for (int i = 0; i < answered + throttled; i++) {
            AttemptResult result = i < answered ? AttemptResult.ANSWERED : AttemptResult.THROTTLED;
            String trace = String.format("%032x", ++next);
            int status = result == AttemptResult.ANSWERED ? 200 : 429;
            AttemptEvent attempt = new AttemptEvent(trace, 1, "d", "openai", "gpt-4o-mini", Map.of(), 0, result, status,
                    "ok", Optional.empty(), OptionalLong.empty(), new TokenCounts(100, 50, 0), TokenCounts.NONE, true,
                    true, Settlement.SETTLED, 1_000_000L, OptionalLong.empty(), OptionalLong.empty());
            r.warmups().onRequest(new RequestEvent(trace, String.format("%016x", next), 0, "openai.chat",
                    Optional.of(new Caller("o", "jobs", "t", "k")), Optional.of("p"), Optional.of("batch"),
                    Optional.of("d"), Optional.of("openai"), Optional.of("gpt-4o-mini"), Map.of(), false,
                    new TokenCounts(100, 50, 0), TokenCounts.NONE, false, "admitted", Optional.empty(),
                    Optional.empty(), Optional.empty(), 0, Optional.of("normal"), false, false, 1, Optional.empty(),
                    status, OptionalLong.empty(), 1_000_000L, OptionalLong.empty(), List.of(attempt),
                    Optional.empty()));
        }
    }

    @Test
    void aMinuteIsJudgedOnTheFleetsAttemptsByOneReplica() {
        List<SluiceRuntime> fleet = List.of(replica("a"), replica("b"), replica("c"));
        List<RedisRolloutFigures> figures = new ArrayList<>();
        List<List<WarmupDecision>> made = new ArrayList<>();
        for (SluiceRuntime r : fleet) {
            RedisRolloutFigures f = RedisRolloutFigures.manual(stores.get(figures.size()), r.rollouts(), r.warmups(),
                    Duration.ofMillis(250));
            figures.add(f);
            List<WarmupDecision> mine = new ArrayList<>();
            r.warmups().onDecision(mine::add);
            made.add(mine);
        }
        clock.advance(Duration.ofSeconds(60));
        fleet.forEach(SluiceRuntime::tick);
        made.forEach(List::clear);
        attempts(fleet.get(0), 4, 0);
        attempts(fleet.get(1), 4, 0);
        attempts(fleet.get(2), 3, 1);

        // A round every 250 ms, as sluice serve's: each replica ticks and exchanges in turn.
        for (int round = 0; round < 240; round++) {
            clock.advance(Duration.ofMillis(250));
            for (int i = 0; i < 3; i++) {
                fleet.get(i).tick();
                figures.get(i).exchange();
            }
        }

        // 1 provider 429 in 12 attempts (4 on each replica, too few alone to judge): paused, by a alone.
        assertThat(made.get(0)).extracting(WarmupDecision::action).containsExactly("paused");
        assertThat(made.get(0).get(0).reason()).endsWith("(1 provider 429s of 12 attempts)");
        assertThat(made.get(1)).isEmpty();
        assertThat(made.get(2)).isEmpty();
        figures.forEach(RedisRolloutFigures::close);
    }
}
