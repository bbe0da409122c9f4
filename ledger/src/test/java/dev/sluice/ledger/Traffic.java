package dev.sluice.ledger;

import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Nine requests whose every sum is worked out by hand in the contract test. Two tenants (acme with
 * keys a1 and a2, globex with g1) and one caller without a key; profile fast on openai-east (OpenAI:
 * cache reads count against input), profile claude on anthropic-main (Anthropic: they do not).
 */
public final class Traffic {

    /** Monday 2 March 2026, 10:15 UTC: the day's requests arrive in the minutes after it. */
    public static final Instant T0 = Instant.parse("2026-03-02T10:15:00Z");
    /** When the tests ask: two hours later. */
    public static final Instant NOW = T0.plus(Duration.ofHours(2));

    private Traffic() {}

    static Instant at(int minutes) {
        return T0.plus(Duration.ofMinutes(minutes));
    }

    /** E1: acme/a1 answered, output shorter than estimated. */
    public static RequestEvent e1() {
        return Events.request("00000000000000000000000000000001", at(0)).caller("acme-corp", "acme", "acme/search", "a1")
                .estimate(100, 50, 0).usage(110, 40, 0).latencyMillis(200).ttftMillis(50)
                .attempt(AttemptResult.ANSWERED).estimate(100, 50, 0).usage(110, 40, 0).latencyMillis(190)
                .ttftMillis(45).done().build();
    }

    /** E2: acme/a1 answered, 50 tokens read from OpenAI's cache (counted). */
    public static RequestEvent e2() {
        return Events.request("00000000000000000000000000000002", at(1)).caller("acme-corp", "acme", "acme/search", "a1")
                .estimate(150, 100, 50).usage(130, 120, 50).latencyMillis(300)
                .attempt(AttemptResult.ANSWERED).estimate(150, 100, 50).usage(130, 120, 50).latencyMillis(290).done()
                .build();
    }

    /** E3: acme/a2 batch on claude, queued 2 s, borrowed, 600 cache reads Anthropic does not count. */
    public static RequestEvent e3() {
        return Events.request("00000000000000000000000000000003", at(2)).caller("acme-corp", "acme", "acme/batch", "a2")
                .route("claude", "anthropic-main", "anthropic", "claude-sonnet").scope(Map.of("workspace", "w1"))
                .trafficClass("batch").queued(2_000_000_000L).borrowed().operation("anthropic.messages")
                .estimate(1000, 300, 500).usage(900, 250, 600).latencyMillis(1000)
                .attempt(AttemptResult.ANSWERED).estimate(1000, 300, 500).usage(900, 250, 600).cacheReadsNotCounted()
                .latencyMillis(990).done().build();
    }

    /** E4: globex/g1 refused locally on its tenant's input rate, retry after 1.5 s. */
    public static RequestEvent e4() {
        return Events.request("00000000000000000000000000000004", at(3))
                .caller("globex", "globex", "globex/app", "g1").decision("rejected")
                .refused("rejected_locally", "input_tpm", "tenant:globex", "tenant_input_tpm_exhausted")
                .estimate(300, 100, 0).status(429).retryAfter(1500).latencyMillis(1).build();
    }

    /** E5: globex/g1: the provider refused (429, retry after 2 s), the retry was answered. */
    public static RequestEvent e5() {
        return Events.request("00000000000000000000000000000005", at(4)).caller("globex", "globex", "globex/app", "g1")
                .estimate(100, 50, 0).usage(90, 60, 0).latencyMillis(500).ttftMillis(480)
                .attempt(AttemptResult.THROTTLED).status(429, "rate_limited").limitHit("input_tpm", 2000)
                .estimate(100, 50, 0).settlement(Settlement.HELD).retryDelay(2000).latencyMillis(20).done()
                .attempt(AttemptResult.ANSWERED).estimate(100, 50, 0).usage(90, 60, 0).latencyMillis(250).done()
                .build();
    }

    /** E6: acme/a1 stream, the client left after 37 output tokens (Sluice's count). */
    public static RequestEvent e6() {
        return Events.request("00000000000000000000000000000006", at(5)).caller("acme-corp", "acme", "acme/search", "a1")
                .streaming().estimate(100, 500, 0).usage(100, 37, 0).usageNotReported().status(499)
                .latencyMillis(700).ttftMillis(100)
                .attempt(AttemptResult.CLIENT_GONE).status(0, "client_gone").estimate(100, 500, 0).usage(100, 37, 0)
                .usageNotReported().latencyMillis(690).ttftMillis(95).done().build();
    }

    /** E7: no known key: refused with 401 before anything was resolved. */
    public static RequestEvent e7() {
        return Events.request("00000000000000000000000000000007", at(6)).noCaller().route(null, null, null, null)
                .scope(Map.of()).trafficClass(null).mode(null).decision("none").status(401).latencyMillis(1)
                .build();
    }

    /** E8: acme/a1 answered the day before, 27 hours earlier: outside "24h", inside "7d". */
    public static RequestEvent e8() {
        return Events.request("00000000000000000000000000000008", T0.minus(Duration.ofHours(27)))
                .caller("acme-corp", "acme", "acme/search", "a1").estimate(100, 50, 0).usage(100, 50, 0)
                .latencyMillis(100).attempt(AttemptResult.ANSWERED).estimate(100, 50, 0).usage(100, 50, 0).done()
                .build();
    }

    /** E9: globex/g1 on claude: admitted, refused by Anthropic on output (retry after 30 s), passed on. */
    public static RequestEvent e9() {
        return Events.request("00000000000000000000000000000009", at(8)).caller("globex", "globex", "globex/app", "g1")
                .route("claude", "anthropic-main", "anthropic", "claude-sonnet").scope(Map.of("workspace", "w1"))
                .operation("anthropic.messages")
                .gatewayDecision("admitted_then_provider_rejected", "provider_rate_limited").status(429)
                .retryAfter(30_000).estimate(400, 200, 0).latencyMillis(400)
                .attempt(AttemptResult.THROTTLED).status(429, "rate_limited").limitHit("output_tpm", 30_000)
                .estimate(400, 200, 0).cacheReadsNotCounted().latencyMillis(390).done().build();
    }

    public static List<RequestEvent> all() {
        return List.of(e1(), e2(), e3(), e4(), e5(), e6(), e7(), e8(), e9());
    }
}
