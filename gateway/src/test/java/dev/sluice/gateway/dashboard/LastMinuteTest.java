package dev.sluice.gateway.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What the dashboard's last minute adds up, with exact numbers, on a fake clock. */
class LastMinuteTest {

    static AttemptEvent attempt(AttemptResult result, OptionalLong retryAfterMillis, TokenCounts usage, boolean cacheCounted) {
        return new AttemptEvent("0af7651916cd43dd8448eb211c80319c", 1, "east", "openai", "gpt-4o-mini", Map.of(),
                1_700_000_000_000L, result, result == AttemptResult.THROTTLED ? 429 : 200,
                result == AttemptResult.THROTTLED ? "rate_limited" : "ok",
                result == AttemptResult.THROTTLED ? Optional.of("input_tpm") : Optional.empty(), retryAfterMillis,
                new TokenCounts(100, 50, 0), usage, true, cacheCounted,
                result == AttemptResult.THROTTLED ? Settlement.HELD : Settlement.SETTLED, 1_000_000, OptionalLong.empty(),
                OptionalLong.empty());
    }

    static RequestEvent request(String tenant, String decision, TokenCounts estimate, TokenCounts usage,
            Optional<Decider> decider, long queueWaitMillis, boolean fallback, List<AttemptEvent> attempts) {
        return new RequestEvent("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1_700_000_000_000L,
                "openai.chat", Optional.of(new Caller("o", tenant, "t", "k")), Optional.of("chat"),
                Optional.of("interactive"), Optional.of("east"), Optional.of("openai"), Optional.of("gpt-4o-mini"),
                Map.of(), false, estimate, usage, true, decision, Optional.empty(), decider, Optional.empty(),
                queueWaitMillis * 1_000_000, Optional.of("normal"), false, false, attempts.size(),
                fallback ? Optional.of("first_choice_throttled") : Optional.empty(),
                "rejected".equals(decision) ? 429 : 200, OptionalLong.empty(), 1_000_000, OptionalLong.empty(), attempts);
    }

    static RequestEvent answered(String tenant, TokenCounts usage) {
        return request(tenant, "admitted", new TokenCounts(100, 50, 0), usage, Optional.empty(), 0, false,
                List.of(attempt(AttemptResult.ANSWERED, OptionalLong.empty(), usage, true)));
    }

    @Test
    void aTenantsRequestsAndTokensAreSummedOverTheLastSixtySeconds() {
        FakeClock clock = new FakeClock();
        LastMinute m = new LastMinute(clock);
        m.onRequest(answered("acme", new TokenCounts(120, 40, 30)));
        clock.advance(Duration.ofSeconds(30));
        m.onRequest(answered("acme", new TokenCounts(80, 10, 0)));
        m.onRequest(answered("globex", new TokenCounts(5, 5, 0)));

        LastMinute.Counts c = m.minute();
        assertThat(c.requests).isEqualTo(3);
        assertThat(c.tenants.get("acme")).startsWith(2, 200, 50, 30, 0);
        assertThat(c.tenants.get("globex")).startsWith(1, 5, 5, 0, 0);

        clock.advance(Duration.ofSeconds(30));
        assertThat(m.minute().tenants.get("acme")).as("the first request is sixty seconds old: gone")
                .startsWith(1, 80, 10, 0, 0);
        clock.advance(Duration.ofSeconds(30));
        assertThat(m.minute().requests).isZero();
        assertThat(m.minute().tenants).isEmpty();
    }

    @Test
    void aSlotReusedAMinuteLaterStartsFromZero() {
        FakeClock clock = new FakeClock();
        LastMinute m = new LastMinute(clock);
        m.onRequest(answered("acme", new TokenCounts(1, 1, 0)));
        clock.advance(Duration.ofSeconds(60));
        m.onRequest(answered("acme", new TokenCounts(2, 2, 0)));
        assertThat(m.minute().tenants.get("acme")).startsWith(1, 2, 2, 0, 0);
    }

    @Test
    void refusalsAndWaitsAreCountedPerProfileClassAndDecidingBucket() {
        FakeClock clock = new FakeClock();
        LastMinute m = new LastMinute(clock);
        Decider tenantRpm = new Decider("rpm", "tenant:acme", Optional.empty());
        Decider deploymentInput = new Decider("input_tpm", "deployment:east", Optional.of("1s"));
        m.onRequest(request("acme", "rejected", new TokenCounts(100, 50, 0), TokenCounts.NONE, Optional.of(tenantRpm), 0,
                false, List.of()));
        m.onRequest(request("acme", "rejected", new TokenCounts(100, 50, 0), TokenCounts.NONE, Optional.of(tenantRpm), 0,
                false, List.of()));
        m.onRequest(request("acme", "queued", new TokenCounts(100, 50, 0), new TokenCounts(100, 50, 0),
                Optional.of(deploymentInput), 40, false,
                List.of(attempt(AttemptResult.ANSWERED, OptionalLong.empty(), new TokenCounts(100, 50, 0), true))));
        m.onRequest(request("acme", "queued", new TokenCounts(100, 50, 0), new TokenCounts(100, 50, 0),
                Optional.of(deploymentInput), 160, true,
                List.of(attempt(AttemptResult.ANSWERED, OptionalLong.empty(), new TokenCounts(100, 50, 0), true))));

        LastMinute.Counts c = m.minute();
        assertThat(c.decisions.get(new LastMinute.Decision("tenant:acme", "rpm"))).containsExactly(2, 0);
        assertThat(c.decisions.get(new LastMinute.Decision("deployment:east", "input_tpm"))).containsExactly(0, 2);
        long[] p = c.profiles.get("chat");
        assertThat(p[LastMinute.P_REQUESTS]).isEqualTo(4);
        assertThat(p[LastMinute.P_REJECTED]).isEqualTo(2);
        assertThat(p[LastMinute.P_QUEUED]).isEqualTo(2);
        assertThat(p[LastMinute.P_FALLBACKS]).isEqualTo(1);
        long[] k = c.classes.get(new LastMinute.ClassAt("east", "interactive"));
        assertThat(k[LastMinute.C_QUEUED]).isEqualTo(2);
        assertThat(k[LastMinute.C_WAIT_NANOS]).isEqualTo(200_000_000L);
        assertThat(k[LastMinute.C_WAIT_MAX_NANOS]).isEqualTo(160_000_000L);
        assertThat(k[LastMinute.C_REJECTED]).isEqualTo(2);
        assertThat(c.tenants.get("acme")[LastMinute.T_REJECTED]).isEqualTo(2);
    }

    @Test
    void onlyProviderReportedAnswersCompareTheEstimateAndOneOffByMoreThanAQuarterIsCounted() {
        FakeClock clock = new FakeClock();
        LastMinute m = new LastMinute(clock);
        m.onRequest(answered("acme", new TokenCounts(100, 20, 0)));   // input exact
        m.onRequest(answered("acme", new TokenCounts(130, 50, 0)));   // input 30% over
        m.onRequest(request("acme", "rejected", new TokenCounts(100, 50, 0), TokenCounts.NONE, Optional.empty(), 0, false,
                List.of()));                                           // never sent: not compared
        long[] p = m.minute().profiles.get("chat");
        assertThat(p[LastMinute.P_COMPARED]).isEqualTo(2);
        assertThat(p[LastMinute.P_EST_INPUT]).isEqualTo(200);
        assertThat(p[LastMinute.P_USED_INPUT]).isEqualTo(230);
        assertThat(p[LastMinute.P_EST_OUTPUT]).isEqualTo(100);
        assertThat(p[LastMinute.P_USED_OUTPUT]).isEqualTo(70);
        assertThat(p[LastMinute.P_OFF_BY_25]).isEqualTo(1);
    }

    @Test
    void providerRetryAfterHintsLandInTheirBucketAndCacheReadsAreSplitByWhetherTheLimitCountsThem() {
        FakeClock clock = new FakeClock();
        LastMinute m = new LastMinute(clock);
        List<AttemptEvent> attempts = List.of(
                attempt(AttemptResult.THROTTLED, OptionalLong.of(250), TokenCounts.NONE, false),
                attempt(AttemptResult.THROTTLED, OptionalLong.of(251), TokenCounts.NONE, false),
                attempt(AttemptResult.THROTTLED, OptionalLong.of(90_000), TokenCounts.NONE, false),
                attempt(AttemptResult.THROTTLED, OptionalLong.empty(), TokenCounts.NONE, false),
                attempt(AttemptResult.ANSWERED, OptionalLong.empty(), new TokenCounts(10, 5, 700), false));
        m.onRequest(request("acme", "admitted", new TokenCounts(100, 50, 0), new TokenCounts(10, 5, 700),
                Optional.empty(), 0, false, attempts));
        LastMinute.Counts c = m.minute();
        long[] h = c.throttles.get(new LastMinute.Throttle("openai", "east", "input_tpm"));
        assertThat(h).containsExactly(1, 1, 0, 0, 0, 0, 0, 0, 1, 1);
        long[] d = c.deployments.get("east");
        assertThat(d[LastMinute.DEP_ATTEMPTS]).isEqualTo(5);
        assertThat(d[LastMinute.DEP_THROTTLED]).isEqualTo(4);
        assertThat(d[LastMinute.DEP_CACHE_UNCOUNTED]).isEqualTo(700);
        assertThat(d[LastMinute.DEP_CACHE_COUNTED]).isZero();
        assertThat(d[LastMinute.DEP_INPUT]).isEqualTo(710);
    }
}
