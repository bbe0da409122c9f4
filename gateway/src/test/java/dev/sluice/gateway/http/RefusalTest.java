package dev.sluice.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.governor.GatewayDecision;
import io.vertx.core.MultiMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class RefusalTest {

    static RejectionView view(GatewayDecision d, String code, long ms, boolean retryable) {
        return new RejectionView(d, code, "why", "rpm", "key:k", "openai", "chat", "gpt-4o-mini", ms, retryable,
                "acme", "k", "interactive", 10, 20, "trace");
    }

    static MultiMap headers(Refusal r) {
        MultiMap h = MultiMap.caseInsensitiveMultiMap();
        r.headers(h);
        return h;
    }

    @Test
    void aRetryableWaitGivesWholeSecondsRoundedUpBesideTheExactMilliseconds() {
        Refusal r = Refusal.of(view(GatewayDecision.REJECTED_LOCALLY, "key_rpm_exhausted", 2_400, true));
        assertThat(r.status()).isEqualTo(429);
        MultiMap h = headers(r);
        assertThat(h.get("retry-after")).isEqualTo("3");
        assertThat(h.get("retry-after-ms")).isEqualTo("2400");
        assertThat(h.get("x-should-retry")).isNull();
    }

    @Test
    void sixtySecondsExactlyIsStillRetried() {
        Refusal r = Refusal.of(view(GatewayDecision.REJECTED_LOCALLY, "key_rpm_exhausted", 60_000, true));
        assertThat(r.retry()).isTrue();
        assertThat(headers(r).get("retry-after")).isEqualTo("60");
    }

    @Test
    void aLongerWaitSaysDoNotRetryAndSendsNoHint() {
        Refusal r = Refusal.of(view(GatewayDecision.REJECTED_LOCALLY, "key_rpm_exhausted", 60_001, true));
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.retry()).isFalse();
        assertThat(r.retryAfterMillis()).hasValue(60_001);
        MultiMap h = headers(r);
        assertThat(h.get("x-should-retry")).isEqualTo("false");
        assertThat(h.get("retry-after")).isNull();
        assertThat(h.get("retry-after-ms")).isNull();
    }

    @Test
    void aSpentDailyCapKeepsItsRealWaitForTheBodyButSendsNoHint() {
        Refusal r = Refusal.of(view(GatewayDecision.BUDGET_EXHAUSTED, "key_daily_requests_exhausted", 3_600_000, false));
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.retryAfterMillis()).hasValue(3_600_000);
        assertThat(headers(r).get("retry-after-ms")).isNull();
        assertThat(headers(r).get("x-should-retry")).isEqualTo("false");
        JsonNode e = ErrorBodies.rejection(ApiFamily.OPENAI,
                view(GatewayDecision.BUDGET_EXHAUSTED, "key_daily_requests_exhausted", 3_600_000, false), r).path("error");
        assertThat(e.path("code").asText()).isEqualTo("insufficient_quota");
        assertThat(e.path("retry_after_ms").asLong()).isEqualTo(3_600_000);
    }

    @Test
    void aProvidersSpentQuotaIsInsufficientQuotaToOpenAiClients() {
        RejectionView v = view(GatewayDecision.ADMITTED_THEN_PROVIDER_REJECTED, "provider_insufficient_quota", 1_000, false);
        Refusal r = Refusal.of(v);
        assertThat(r.status()).isEqualTo(429);
        assertThat(ErrorBodies.rejection(ApiFamily.OPENAI, v, r).path("error").path("code").asText()).isEqualTo("insufficient_quota");
        RejectionView tooLarge = view(GatewayDecision.ADMITTED_THEN_PROVIDER_REJECTED, "provider_request_too_large", 1, false);
        assertThat(Refusal.of(tooLarge).status()).isEqualTo(413);
    }

    @Test
    void aRequestThatCanNeverFitIsA413WithoutAWait() {
        Refusal r = Refusal.of(view(GatewayDecision.REJECTED_LOCALLY, "key_input_tpm_too_large", 1, false));
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.retryAfterMillis()).isEmpty();
        assertThat(headers(r).get("retry-after-ms")).isNull();
        assertThat(headers(r).get("x-should-retry")).isEqualTo("false");
    }

    @Test
    void aPausedKeyIsA429ThatSaysNotToRetry() {
        Refusal r = Refusal.of(view(GatewayDecision.PAUSED, "key_paused", 60_000, false));
        assertThat(r.status()).isEqualTo(429);
        assertThat(headers(r).get("x-should-retry")).isEqualTo("false");
        assertThat(r.retryAfterMillis()).isEmpty();
        assertThat(headers(r).get("retry-after")).isNull();
    }

    @Test
    void theHintsReplaceWhateverWasSetBefore() {
        MultiMap h = MultiMap.caseInsensitiveMultiMap().set("retry-after", "1").set("retry-after-ms", "1");
        Refusal.of(view(GatewayDecision.BUDGET_EXHAUSTED, "key_daily_tokens_exhausted", 5_000, false)).headers(h);
        assertThat(h.get("retry-after")).isNull();
        assertThat(h.get("retry-after-ms")).isNull();
    }

    @Property
    void headersAndBodyNeverDisagree(@ForAll @LongRange(min = -5, max = 100_000_000) long ms, @ForAll boolean retryable) {
        RejectionView v = view(GatewayDecision.REJECTED_LOCALLY, "key_rpm_exhausted", ms, retryable);
        Refusal r = Refusal.of(v);
        MultiMap h = headers(r);
        for (ApiFamily family : ApiFamily.values()) {
            JsonNode e = ErrorBodies.rejection(family, v, r).path("error");
            assertThat(e.path("retryable").asBoolean()).isEqualTo(r.retry());
            assertThat(h.contains("x-should-retry")).isEqualTo(!r.retry());
            if (r.retry()) {
                long sent = Long.parseLong(h.get("retry-after-ms"));
                assertThat(sent).isBetween(1L, ErrorBodies.MAX_CLIENT_RETRY_MILLIS).isEqualTo(e.path("retry_after_ms").asLong());
                assertThat(Long.parseLong(h.get("retry-after"))).isEqualTo(Math.ceilDiv(sent, 1000L));
            } else {
                assertThat(h.get("retry-after-ms")).isNull();
                assertThat(h.get("retry-after")).isNull();
            }
            boolean retryInfo = e.path("details").findValuesAsText("@type").contains("type.googleapis.com/google.rpc.RetryInfo");
            assertThat(retryInfo).isEqualTo(family == ApiFamily.GEMINI && r.retry());
        }
    }

    @Test
    void eachFamilySaysRateLimitInTheFieldsItsLibrariesRead() {
        RejectionView v = view(GatewayDecision.REJECTED_LOCALLY, "key_rpm_exhausted", 2_400, true);
        Refusal r = Refusal.of(v);
        JsonNode openAi = ErrorBodies.rejection(ApiFamily.OPENAI, v, r).path("error");
        assertThat(openAi.path("code").asText()).isEqualTo("rate_limit_exceeded");
        assertThat(openAi.path("sluice_code").asText()).isEqualTo("key_rpm_exhausted");
        assertThat(openAi.path("type").asText()).isEqualTo("rate_limited");
        JsonNode anthropic = ErrorBodies.rejection(ApiFamily.ANTHROPIC, v, r);
        assertThat(anthropic.path("type").asText()).isEqualTo("error");
        assertThat(anthropic.path("error").path("type").asText()).isEqualTo("rate_limit_error");
        assertThat(anthropic.path("error").path("sluice_code").asText()).isEqualTo("key_rpm_exhausted");
        JsonNode gemini = ErrorBodies.rejection(ApiFamily.GEMINI, v, r).path("error");
        assertThat(gemini.path("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(gemini.path("code").asInt()).isEqualTo(429);
        assertThat(gemini.path("details").findValuesAsText("retryDelay")).containsExactly("2.400s");
    }

    @Test
    void aTooLargeRequestIsAnInvalidRequestInEveryFamily() {
        RejectionView v = view(GatewayDecision.REJECTED_LOCALLY, "key_input_tpm_too_large", 1, false);
        Refusal r = Refusal.of(v);
        assertThat(ErrorBodies.rejection(ApiFamily.OPENAI, v, r).path("error").path("type").asText())
                .isEqualTo("invalid_request_error");
        assertThat(ErrorBodies.rejection(ApiFamily.ANTHROPIC, v, r).path("error").path("type").asText())
                .isEqualTo("request_too_large");
        assertThat(ErrorBodies.rejection(ApiFamily.GEMINI, v, r).path("error").path("status").asText())
                .isEqualTo("INVALID_ARGUMENT");
        assertThat(ErrorBodies.rejection(ApiFamily.OPENAI, v, r).path("error").path("retry_after_ms").isNull()).isTrue();
    }
}
