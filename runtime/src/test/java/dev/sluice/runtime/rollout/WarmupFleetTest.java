package dev.sluice.runtime.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Two replicas judging one warm-up's minute on the fleet's attempts: each publishes the tenant's
 * attempts and provider 429s in the minute so far, the lower replica id adds them up and decides
 * alone. The exchange is done by hand here (through Redis in sluice serve). A minute needs 10
 * attempts to be judged, and a provider 429 rate above 1% pauses growth.
 */
class WarmupFleetTest {

    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            warmups:
              nightly: { tenant: jobs, start: "02:00", duration: 1h, initial: { rpm: 12 }, max_growth_per_minute: { rpm: 40 },
                         min_requests: 10, thresholds: { provider_429_rate: 0.01 } }
            orgs:
              o: { tenants: { jobs: { limits: { rpm: 240 } } } }
            """, "warmups.yaml", v -> null);

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-03T01:59:00Z"));
    private final SluiceRuntime a = replica();
    private final SluiceRuntime b = replica();
    private final List<WarmupDecision> madeByB = new ArrayList<>();
    private int next;

    WarmupFleetTest() {
        clock.advance(Duration.ofSeconds(61));
        a.tick();
        b.tick();
        b.warmups().onDecision(madeByB::add);
    }

    private SluiceRuntime replica() {
        SluiceRuntime r = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        r.warmups().judgedByFleet(true);
        return r;
    }

    /** {@code answered} requests of the tenant answered, then {@code throttled} refused by the provider, on {@code r}. */
    private void requests(SluiceRuntime r, int answered, int throttled) {
        for (int i = 0; i < answered + throttled; i++) {
            AttemptResult result = i < answered ? AttemptResult.ANSWERED : AttemptResult.THROTTLED;
            String trace = String.format("%032x", ++next);
            AttemptEvent attempt = new AttemptEvent(trace, 1, "d", "openai", "gpt-4o-mini", Map.of(), 0, result,
                    result == AttemptResult.ANSWERED ? 200 : 429, "ok", Optional.empty(), OptionalLong.empty(),
                    new TokenCounts(100, 50, 0), TokenCounts.NONE, true, true, Settlement.SETTLED, 1_000_000L,
                    OptionalLong.empty(), OptionalLong.empty());
            r.warmups().onRequest(new RequestEvent(trace, String.format("%016x", next), 0, "openai.chat",
                    Optional.of(new Caller("o", "jobs", "t", "k")), Optional.of("p"), Optional.of("batch"),
                    Optional.of("d"), Optional.of("openai"), Optional.of("gpt-4o-mini"), Map.of(), false,
                    new TokenCounts(100, 50, 0), TokenCounts.NONE, false, "admitted", Optional.empty(),
                    Optional.empty(), Optional.empty(), 0, Optional.of("normal"), false, false, 1, Optional.empty(),
                    result == AttemptResult.ANSWERED ? 200 : 429, OptionalLong.empty(), 1_000_000L,
                    OptionalLong.empty(), List.of(attempt), Optional.empty()));
        }
    }

    /** One exchange: each replica publishes, then each judges what it decides, a first. */
    private List<WarmupDecision> exchange() {
        List<Warmups.Published> ofA = a.warmups().published();
        List<Warmups.Published> ofB = b.warmups().published();
        List<WarmupDecision> out = new ArrayList<>(WarmupFleet.round(a.warmups(), "a", ofA,
                Map.of("b", "v1" + WarmupFleet.lines(ofB))));
        out.addAll(WarmupFleet.round(b.warmups(), "b", ofB, Map.of("a", "v1" + WarmupFleet.lines(ofA))));
        return out;
    }

    @Test
    void aMinuteTooQuietOnEachReplicaIsJudgedOnTheFleetsAttemptsAndPauses() {
        requests(a, 6, 0);
        requests(b, 5, 1);
        clock.advance(Duration.ofMinutes(1));
        a.tick();
        b.tick();
        assertThat(a.warmups().inspect("nightly").grown()).as("judged by the fleet: the tick leaves it").isZero();

        List<WarmupDecision> made = exchange();

        // 1 provider 429 in 12 attempts: above 1%; each replica alone had fewer than 10 and grew.
        assertThat(made).extracting(WarmupDecision::action).containsExactly("paused");
        assertThat(made.get(0).reason()).isEqualTo("provider 429 rate 0.08333333333333333 above 0.01 "
                + "(1 provider 429s of 12 attempts)");
        assertThat(madeByB).as("the higher id never decides while the lower one publishes").isEmpty();
    }

    @Test
    void aMinuteIsJudgedOnlyOnceItHasEndedOnTheDecidingReplica() {
        requests(a, 20, 0);
        clock.advance(Duration.ofSeconds(59));

        assertThat(exchange()).isEmpty();

        clock.advance(Duration.ofSeconds(1));
        assertThat(exchange()).extracting(WarmupDecision::action).containsExactly("grown");
    }

    @Test
    void aReplicaAtAnotherVersionIsLeftOutOfTheSum() {
        requests(a, 6, 0);
        requests(b, 5, 1);
        b.warmups().pause("nightly", "ops"); // b moved on: its version is ahead until a reads the decision
        clock.advance(Duration.ofMinutes(1));

        List<WarmupDecision> made = WarmupFleet.round(a.warmups(), "a", a.warmups().published(),
                Map.of("b", "v1" + WarmupFleet.lines(b.warmups().published())));

        assertThat(made).extracting(WarmupDecision::action).containsExactly("grown");
        assertThat(made.get(0).reason()).endsWith("(0 provider 429s of 6 attempts)");
    }

    @Test
    void judgedLocallyTheTickJudgesEachReplicasOwnMinute() {
        a.warmups().judgedByFleet(false);
        requests(a, 6, 0);
        requests(b, 5, 1);
        clock.advance(Duration.ofMinutes(1));

        a.tick();

        assertThat(a.warmups().inspect("nightly").history()).extracting(WarmupDecision::action)
                .containsExactly("started", "grown");
    }
}
