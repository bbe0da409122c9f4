package dev.sluice.signal;

import static dev.sluice.signal.Responses.normalise;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** provider-semantics.md §3: Anthropic headers and error bodies. Now is 2026-01-01T00:00:00Z. */
class AnthropicSignalTest {

    private static final ProviderKind ANTHROPIC = ProviderKind.ANTHROPIC;

    @Test
    void readsTheFourTripletsWithRfc3339Resets() {
        ProviderSignal signal = normalise(ANTHROPIC, 200, "",
                "anthropic-ratelimit-requests-limit", "1000",
                "anthropic-ratelimit-requests-remaining", "999",
                "anthropic-ratelimit-requests-reset", "2026-01-01T00:00:01Z",
                "anthropic-ratelimit-tokens-limit", "96000",
                "anthropic-ratelimit-tokens-remaining", "95000",
                "anthropic-ratelimit-tokens-reset", "2026-01-01T00:00:05.250Z",
                "anthropic-ratelimit-input-tokens-limit", "80000",
                "anthropic-ratelimit-input-tokens-remaining", "80000",
                "anthropic-ratelimit-input-tokens-reset", "2026-01-01T01:00:00+01:00",
                "anthropic-ratelimit-output-tokens-limit", "16000",
                "anthropic-ratelimit-output-tokens-remaining", "15000",
                "anthropic-ratelimit-output-tokens-reset", "2026-01-01T00:01:00Z",
                "request-id", "req_abc");
        assertThat(signal.observations()).containsExactly(
                OpenAiSignalTest.observation(LimitKind.REQUESTS, 1000, 999, 1_000, "anthropic-ratelimit-requests-*"),
                OpenAiSignalTest.observation(LimitKind.TOKENS, 96_000, 95_000, 5_250, "anthropic-ratelimit-tokens-*"),
                OpenAiSignalTest.observation(LimitKind.INPUT_TOKENS, 80_000, 80_000, 0,
                        "anthropic-ratelimit-input-tokens-*"),
                OpenAiSignalTest.observation(LimitKind.OUTPUT_TOKENS, 16_000, 15_000, 60_000,
                        "anthropic-ratelimit-output-tokens-*"));
        assertThat(signal.malformedFields()).isZero();
    }

    @Test
    void readsPriorityTierHeaders() {
        ProviderSignal signal = normalise(ANTHROPIC, 200, "",
                "anthropic-priority-input-tokens-limit", "40000",
                "anthropic-priority-input-tokens-remaining", "39000",
                "anthropic-priority-input-tokens-reset", "2026-01-01T00:00:10Z");
        assertThat(signal.observations()).containsExactly(OpenAiSignalTest.observation(
                LimitKind.INPUT_TOKENS, 40_000, 39_000, 10_000, "anthropic-priority-input-tokens-*"));
    }

    @ParameterizedTest(name = "reset [{0}] is malformed")
    @CsvSource(delimiter = '|', textBlock = """
            1s
            1755780059
            2026-13-01T00:00:00Z
            Thu, 01 Jan 2026 00:00:10 GMT
            2026-01-03T00:00:00Z
            """)
    void nonRfc3339OrFarFutureResetsAreIgnored(String reset) {
        ProviderSignal signal = normalise(ANTHROPIC, 200, "", "anthropic-ratelimit-requests-reset", reset);
        assertThat(signal.observations()).isEmpty();
        assertThat(signal.malformedFields()).isEqualTo(1);
    }

    @Test
    void aResetInThePastIsZero() {
        ProviderSignal signal = normalise(ANTHROPIC, 200, "", "anthropic-ratelimit-requests-reset", "2025-08-21T12:40:59Z");
        assertThat(signal.observations()).singleElement()
                .satisfies(o -> assertThat(o.resetAfterMillis()).hasValue(0));
    }

    static Stream<Arguments> rateLimitMessages() {
        return Stream.of(
                Arguments.of("This request would exceed the rate limit for your organization (org-1) of 40,000 input "
                        + "tokens per minute. For details, refer to the docs.", Optional.of(LimitKind.INPUT_TOKENS)),
                Arguments.of("This request would exceed the rate limit for your organization (org-1) of 8,000 output "
                        + "tokens per minute.", Optional.of(LimitKind.OUTPUT_TOKENS)),
                Arguments.of("This request would exceed the rate limit for your organization (org-1) of 50 requests "
                        + "per minute.", Optional.of(LimitKind.REQUESTS)),
                Arguments.of("Number of request tokens has exceeded your per-minute rate limit",
                        Optional.of(LimitKind.TOKENS)),
                Arguments.of("Rate limited. Please slow down.", Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rateLimitMessages")
    void a429NamesItsLimitFromTheMessage(String message, Optional<LimitKind> limitHit) {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"" + message
                + "\"},\"request_id\":\"req_1\"}";
        ProviderSignal signal = normalise(ANTHROPIC, 429, body, "retry-after", "12");
        assertThat(signal.status()).isEqualTo(SignalStatus.RATE_LIMITED);
        assertThat(signal.limitHit()).isEqualTo(limitHit);
        assertThat(signal.retryAfterMillis()).hasValue(12_000);
        assertThat(signal.retryable()).isTrue();
        assertThat(signal.reason()).isEqualTo(ProviderSignal.REASON_RATE_LIMITED);
    }

    @Test
    void spendCap429IsNotRetryable() {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"You have reached "
                + "your specified API usage limits.\",\"details\":{\"error_code\":\"enforced_spend_limit_reached\"}},"
                + "\"request_id\":\"req_1\"}";
        ProviderSignal signal = normalise(ANTHROPIC, 429, body);
        assertThat(signal.limitHit()).contains(LimitKind.SPEND_QUOTA);
        assertThat(signal.retryable()).isFalse();
        assertThat(signal.reason()).isEqualTo(ProviderSignal.REASON_SPEND_LIMIT);
        assertThat(signal.retryAfterMillis()).isEmpty();
    }

    @Test
    void workspaceSpendLimitAs400KeepsTheReason() {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"limit\","
                + "\"details\":{\"error_code\":\"enforced_spend_limit_reached\"}}}";
        ProviderSignal signal = normalise(ANTHROPIC, 400, body);
        assertThat(signal.status()).isEqualTo(SignalStatus.CLIENT_ERROR);
        assertThat(signal.limitHit()).contains(LimitKind.SPEND_QUOTA);
        assertThat(signal.reason()).isEqualTo(ProviderSignal.REASON_SPEND_LIMIT);
    }

    @Test
    void nullDetailsAreFine() {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"x\",\"details\":null}}";
        ProviderSignal signal = normalise(ANTHROPIC, 429, body, "retry-after", "3");
        assertThat(signal.retryable()).isTrue();
        assertThat(signal.malformedFields()).isZero();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(textBlock = """
            529, overloaded_error,      OVERLOADED,   overloaded,        true
            503, overloaded_error,      OVERLOADED,   overloaded,        true
            500, api_error,             SERVER_ERROR, server_error,      true
            504, timeout_error,         TIMEOUT,      timeout,           true
            413, request_too_large,     CLIENT_ERROR, request_too_large, false
            409, conflict_error,        CLIENT_ERROR, conflict,          true
            402, billing_error,         CLIENT_ERROR, client_error,      false
            401, authentication_error,  CLIENT_ERROR, client_error,      false
            """)
    void errorTypesByStatus(int status, String type, SignalStatus expected, String reason, boolean retryable) {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":\"Overloaded\"}}";
        ProviderSignal signal = normalise(ANTHROPIC, status, body);
        assertThat(signal.status()).isEqualTo(expected);
        assertThat(signal.reason()).isEqualTo(reason);
        assertThat(signal.retryable()).isEqualTo(retryable);
        assertThat(signal.limitHit()).isEmpty();
        assertThat(signal.retryAfterMillis()).isEqualTo(OptionalLong.empty());
    }
}
