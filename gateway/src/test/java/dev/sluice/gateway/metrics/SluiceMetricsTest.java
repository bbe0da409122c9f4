package dev.sluice.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.MetricsSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What each request event adds to the metrics, with exact numbers; no gateway, no sockets. */
class SluiceMetricsTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            admin: { port: 0 }
            deployments: { east: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 100 } } }
            profiles: { chat: { deployment: east, model: gpt-4o-mini }, other: { deployment: east, model: gpt-4o } }
            orgs: { o: { tenants: { acme: { teams: { t: { keys: { k1: { secret: "sk-one" } } } } } } } }
            """, "metrics.yaml", v -> null);

    static final Caller ACME = new Caller("o", "acme", "t", "k1");

    static AttemptEvent attempt(int n, AttemptResult result, int status, Optional<String> limit, OptionalLong retryAfter,
            TokenCounts usage, long latencyMillis, OptionalLong firstChunkMillis) {
        return new AttemptEvent("0af7651916cd43dd8448eb211c80319c", n, "east", "openai", "gpt-4o-mini", Map.of(),
                1_700_000_000_000L, result, status, result == AttemptResult.THROTTLED ? "rate_limited" : "ok", limit,
                retryAfter, new TokenCounts(100, 50, 0), usage, true, true,
                result == AttemptResult.THROTTLED ? Settlement.HELD : Settlement.SETTLED, latencyMillis * 1_000_000,
                firstChunkMillis.isPresent() ? OptionalLong.of(firstChunkMillis.getAsLong() * 1_000_000)
                        : OptionalLong.empty(), OptionalLong.empty());
    }

    static RequestEvent request(String decision, int status, boolean streaming, TokenCounts usage,
            Optional<Decider> decider, long queueWaitMillis, List<AttemptEvent> attempts) {
        return new RequestEvent("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1_700_000_000_000L,
                "openai.chat", Optional.of(ACME), Optional.of("chat"), Optional.of("interactive"),
                Optional.of("east"), Optional.of("openai"), Optional.of("gpt-4o-mini"), Map.of(), streaming,
                new TokenCounts(100, 50, 0), usage, true, decision, Optional.empty(), decider, Optional.empty(),
                queueWaitMillis * 1_000_000, Optional.of("normal"), false, false, attempts.size(), Optional.empty(),
                status, OptionalLong.empty(), 500_000_000L, OptionalLong.empty(), attempts);
    }

    static Scrape scrape(SluiceMetrics m) {
        return new Scrape(m.scrape());
    }

    @Test
    void anAnsweredRequestCountsItsTokensByTenantAndTheGenAiHistogramsByModel() {
        SluiceMetrics m = new SluiceMetrics(CONFIG);
        TokenCounts used = new TokenCounts(80, 40, 20);
        m.onRequest(request("admitted", 200, false, used, Optional.empty(), 0,
                List.of(attempt(1, AttemptResult.ANSWERED, 200, Optional.empty(), OptionalLong.empty(), used, 300,
                        OptionalLong.of(120)))));
        Scrape s = scrape(m);
        assertThat(s.value("sluice_requests_total", "profile", "chat", "class", "interactive", "decision", "admitted",
                "status", "200", "tenant", "acme")).hasValue(1);
        assertThat(s.value("sluice_tokens_total", "tenant", "acme", "type", "input")).hasValue(80);
        assertThat(s.value("sluice_tokens_total", "tenant", "acme", "type", "output")).hasValue(40);
        assertThat(s.value("sluice_tokens_total", "tenant", "acme", "type", "cache_read")).hasValue(20);
        // The conventions' input is every prompt token: 80 fresh + 20 from the cache, in the (64, 256] bucket.
        assertThat(s.value("gen_ai_client_token_usage_sum", "gen_ai_token_type", "input", "gen_ai_provider_name",
                "openai", "gen_ai_request_model", "gpt-4o-mini", "gen_ai_operation_name", "chat")).hasValue(100);
        assertThat(s.value("gen_ai_client_token_usage_bucket", "gen_ai_token_type", "input", "le", "64.0")).hasValue(0);
        assertThat(s.value("gen_ai_client_token_usage_bucket", "gen_ai_token_type", "input", "le", "256.0")).hasValue(1);
        assertThat(s.value("gen_ai_client_operation_duration_seconds_sum", "error_type", "none")).hasValue(0.3);
        assertThat(s.value("gen_ai_client_operation_duration_seconds_bucket", "le", "0.32")).hasValue(1);
        assertThat(s.value("gen_ai_client_operation_duration_seconds_bucket", "le", "0.16")).hasValue(0);
        assertThat(s.value("sluice_cache_read_tokens_total", "deployment", "east", "counted", "true")).hasValue(20);
        assertThat(s.value("gen_ai_client_operation_time_to_first_chunk_seconds_count")).as("not a stream").hasValue(0);
    }

    @Test
    void aStreamRecordsItsTimeToFirstChunk() {
        SluiceMetrics m = new SluiceMetrics(CONFIG);
        TokenCounts used = new TokenCounts(80, 40, 0);
        m.onRequest(request("admitted", 200, true, used, Optional.empty(), 0,
                List.of(attempt(1, AttemptResult.ANSWERED, 200, Optional.empty(), OptionalLong.empty(), used, 900,
                        OptionalLong.of(150)))));
        Scrape s = scrape(m);
        assertThat(s.value("gen_ai_client_operation_time_to_first_chunk_seconds_count")).hasValue(1);
        assertThat(s.value("gen_ai_client_operation_time_to_first_chunk_seconds_sum")).hasValue(0.15);
    }

    @Test
    void aProviderRefusalCountsThe429ByLimiterWithItsRetryAfterAndTheRetryThatFollowed() {
        SluiceMetrics m = new SluiceMetrics(CONFIG);
        TokenCounts used = new TokenCounts(100, 50, 0);
        m.onRequest(request("admitted", 200, false, used, Optional.empty(), 0, List.of(
                attempt(1, AttemptResult.THROTTLED, 429, Optional.of("input_tpm"), OptionalLong.of(1500),
                        TokenCounts.NONE, 20, OptionalLong.empty()),
                attempt(2, AttemptResult.ANSWERED, 200, Optional.empty(), OptionalLong.empty(), used, 300,
                        OptionalLong.empty()))));
        Scrape s = scrape(m);
        assertThat(s.value("sluice_provider_throttled_total", "provider", "openai", "deployment", "east", "limiter",
                "input_tpm")).hasValue(1);
        assertThat(s.value("sluice_provider_retry_after_seconds_sum", "limiter", "input_tpm")).hasValue(1.5);
        assertThat(s.value("sluice_provider_retry_after_seconds_bucket", "limiter", "input_tpm", "le", "1.0"))
                .hasValue(0);
        assertThat(s.value("sluice_provider_retry_after_seconds_bucket", "limiter", "input_tpm", "le", "2.0"))
                .hasValue(1);
        assertThat(s.value("sluice_attempts_total", "result", "throttled")).hasValue(1);
        assertThat(s.value("sluice_attempts_total", "result", "answered")).hasValue(1);
        assertThat(s.value("gen_ai_client_operation_duration_seconds_count", "error_type", "throttled")).hasValue(1);
    }

    @Test
    void aLocalRejectionNamesItsLimiterAndScopeLevelNeverTheScopeItself() {
        SluiceMetrics m = new SluiceMetrics(CONFIG);
        m.onRequest(request("rejected", 429, false, TokenCounts.NONE,
                Optional.of(new Decider("rpm", "tenant:acme", Optional.empty())), 0, List.of()));
        Scrape s = scrape(m);
        assertThat(s.value("sluice_decisions_total", "outcome", "rejected", "limiter", "rpm", "scope_level", "tenant",
                "class", "interactive", "profile", "chat", "deployment", "east")).hasValue(1);
        assertThat(s.matching("sluice_decisions_total").toString()).doesNotContain("tenant:acme");
    }

    @Test
    void aQueuedRequestRecordsItsWaitByClass() {
        SluiceMetrics m = new SluiceMetrics(CONFIG);
        TokenCounts used = new TokenCounts(100, 50, 0);
        m.onRequest(request("queued", 200, false, used, Optional.empty(), 40,
                List.of(attempt(1, AttemptResult.ANSWERED, 200, Optional.empty(), OptionalLong.empty(), used, 300,
                        OptionalLong.empty()))));
        Scrape s = scrape(m);
        assertThat(s.value("sluice_queue_wait_seconds_count", "profile", "chat", "class", "interactive")).hasValue(1);
        assertThat(s.value("sluice_queue_wait_seconds_bucket", "profile", "chat", "class", "interactive", "le",
                "0.05")).hasValue(1);
        assertThat(s.value("sluice_queue_wait_seconds_bucket", "profile", "chat", "class", "interactive", "le",
                "0.025")).hasValue(0);
    }

    @Test
    void theEstimateRatioIsActualOverEstimatedPerAnsweredRequest() {
        SluiceMetrics m = new SluiceMetrics(CONFIG);
        TokenCounts used = new TokenCounts(120, 25, 0); // estimate 100 in, 50 out
        m.onRequest(request("admitted", 200, false, used, Optional.empty(), 0,
                List.of(attempt(1, AttemptResult.ANSWERED, 200, Optional.empty(), OptionalLong.empty(), used, 300,
                        OptionalLong.empty()))));
        Scrape s = scrape(m);
        assertThat(s.value("sluice_estimate_ratio_sum", "profile", "chat", "type", "input")).hasValue(1.2);
        assertThat(s.value("sluice_estimate_ratio_sum", "profile", "chat", "type", "output")).hasValue(0.5);
        assertThat(s.value("sluice_estimate_tokens_total", "profile", "chat", "type", "input")).hasValue(100);
        assertThat(s.value("sluice_estimate_actual_tokens_total", "profile", "chat", "type", "input")).hasValue(120);
    }

    @Test
    void everyProfileShowsZeroFallbacksBeforeAnyTraffic() {
        Scrape s = scrape(new SluiceMetrics(CONFIG));
        assertThat(s.value("sluice_fallbacks_total", "profile", "other")).hasValue(0);
        assertThat(s.matching("sluice_fallbacks_total")).hasSize(2);
    }

    @Test
    void keyLabelsOnlyWhenConfiguredAndTenantLabelsCanBeDropped() {
        SluiceMetrics plain = new SluiceMetrics(CONFIG);
        SluiceMetrics keys = new SluiceMetrics(CONFIG.withMetrics(new MetricsSettings(true, true)));
        SluiceMetrics none = new SluiceMetrics(CONFIG.withMetrics(new MetricsSettings(false, false)));
        for (SluiceMetrics m : List.of(plain, keys, none)) {
            m.onRequest(request("rejected", 429, false, TokenCounts.NONE, Optional.empty(), 0, List.of()));
        }
        assertThat(plain.scrape()).contains("tenant=\"acme\"").doesNotContain("api_key=");
        assertThat(keys.scrape()).contains("api_key=\"k1\"").doesNotContain("sk-one");
        assertThat(none.scrape()).doesNotContain("tenant=").doesNotContain("api_key=");
    }
}
