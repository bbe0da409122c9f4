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

/** provider-semantics.md §1: OpenAI headers and 429 bodies. */
class OpenAiSignalTest {

    private static final ProviderKind OPENAI = ProviderKind.OPENAI;

    @Test
    void readsTheSixDocumentedHeadersOnASuccess() {
        ProviderSignal signal = normalise(OPENAI, 200, "",
                "x-ratelimit-limit-requests", "60",
                "x-ratelimit-limit-tokens", "150000",
                "x-ratelimit-remaining-requests", "59",
                "x-ratelimit-remaining-tokens", "149984",
                "x-ratelimit-reset-requests", "1s",
                "x-ratelimit-reset-tokens", "6m0s",
                "x-request-id", "req_123",
                "openai-processing-ms", "250");
        assertThat(signal.status()).isEqualTo(SignalStatus.SUCCESS);
        assertThat(signal.reason()).isEqualTo(ProviderSignal.REASON_OK);
        assertThat(signal.limitHit()).isEmpty();
        assertThat(signal.observations()).containsExactly(
                observation(LimitKind.REQUESTS, 60, 59, 1_000, "x-ratelimit-*-requests"),
                observation(LimitKind.TOKENS, 150_000, 149_984, 360_000, "x-ratelimit-*-tokens"));
        assertThat(signal.malformedFields()).isZero();
    }

    @ParameterizedTest(name = "reset {0} = {1} ms")
    @CsvSource(delimiter = '|', textBlock = """
            1s       | 1000
            6m0s     | 360000
            12ms     | 12
            9ms      | 9
            120ms    | 120
            2.5s     | 2500
            1h2m3.5s | 3723500
            15us     | 1
            15µs     | 1
            0s       | 0
            0        | 0
            """)
    void resetsAreGoDurations(String reset, long millis) {
        ProviderSignal signal = normalise(OPENAI, 200, "", "x-ratelimit-reset-tokens", reset);
        assertThat(signal.observations()).singleElement()
                .extracting(LimitObservation::resetAfterMillis).isEqualTo(OptionalLong.of(millis));
    }

    @Test
    void readsTheUsageBasedVariants() {
        ProviderSignal signal = normalise(OPENAI, 200, "",
                "x-ratelimit-limit-tokens_usage_based", "400000",
                "x-ratelimit-remaining-tokens_usage_based", "399000",
                "x-ratelimit-reset-tokens_usage_based", "150ms");
        assertThat(signal.observations()).containsExactly(
                observation(LimitKind.TOKENS, 400_000, 399_000, 150, "x-ratelimit-*-tokens_usage_based"));
    }

    @Test
    void readsProjectScopedVariants() {
        ProviderSignal signal = normalise(OPENAI, 200, "", "x-ratelimit-remaining-project-requests", "7");
        assertThat(signal.observations()).singleElement().satisfies(o -> {
            assertThat(o.kind()).isEqualTo(LimitKind.REQUESTS);
            assertThat(o.remaining()).hasValue(7);
        });
    }

    static Stream<Arguments> bodies() {
        return Stream.of(
                Arguments.of("TPM with a 125ms hint",
                        body("Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): "
                                + "Limit 10000, Used 9524, Requested 497. Please try again in 125ms. Visit "
                                + "https://platform.openai.com/account/rate-limits to learn more.",
                                "tokens", "\"rate_limit_exceeded\""),
                        Optional.of(LimitKind.TOKENS), OptionalLong.of(125), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("RPM with a 20s hint",
                        body("Rate limit reached for gpt-4 in organization org-abc on requests per min (RPM): "
                                + "Limit 3, Used 3, Requested 1. Please try again in 20s.",
                                "requests", "\"rate_limit_exceeded\""),
                        Optional.of(LimitKind.REQUESTS), OptionalLong.of(20_000), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("fractional seconds hint",
                        body("Rate limit reached on tokens per min (TPM): Limit 30000, Used 29000, Requested 800. "
                                + "Please try again in 9.816s.", "tokens", "\"rate_limit_exceeded\""),
                        Optional.of(LimitKind.TOKENS), OptionalLong.of(9_816), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("requests per day is a daily quota",
                        body("Rate limit reached for gpt-4o on requests per day (RPD): Limit 200, Used 200, "
                                + "Requested 1. Please try again in 7m12s.", "requests", "\"rate_limit_exceeded\""),
                        Optional.of(LimitKind.DAILY_QUOTA), OptionalLong.of(432_000), false,
                        ProviderSignal.REASON_QUOTA_EXHAUSTED),
                Arguments.of("request too large never succeeds",
                        body("Request too large for gpt-4o in organization org-abc on tokens per min (TPM): "
                                + "Limit 30000, Requested 36055. The input or output tokens must be reduced in "
                                + "order to run successfully.", "tokens", "\"rate_limit_exceeded\""),
                        Optional.of(LimitKind.TOKENS), OptionalLong.empty(), false,
                        ProviderSignal.REASON_REQUEST_TOO_LARGE),
                Arguments.of("insufficient quota",
                        body("You exceeded your current quota, please check your plan and billing details.",
                                "insufficient_quota", "\"insufficient_quota\""),
                        Optional.of(LimitKind.SPEND_QUOTA), OptionalLong.empty(), false,
                        ProviderSignal.REASON_INSUFFICIENT_QUOTA),
                Arguments.of("insufficient quota, older null code",
                        body("You exceeded your current quota, please check your plan and billing details.",
                                "insufficient_quota", "null"),
                        Optional.of(LimitKind.SPEND_QUOTA), OptionalLong.empty(), false,
                        ProviderSignal.REASON_INSUFFICIENT_QUOTA),
                Arguments.of("no detail at all",
                        "{\"error\":{\"message\":\"Too Many\",\"type\":null,\"param\":null,\"code\":null}}",
                        Optional.empty(), OptionalLong.empty(), true, ProviderSignal.REASON_RATE_LIMITED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bodies")
    void reads429Bodies(String form, String body, Optional<LimitKind> limitHit, OptionalLong wait,
            boolean retryable, String reason) {
        ProviderSignal signal = normalise(OPENAI, 429, body);
        assertThat(signal.status()).isEqualTo(SignalStatus.RATE_LIMITED);
        assertThat(signal.limitHit()).isEqualTo(limitHit);
        assertThat(signal.retryAfterMillis()).isEqualTo(wait);
        assertThat(signal.retryable()).isEqualTo(retryable);
        assertThat(signal.reason()).isEqualTo(reason);
        assertThat(signal.malformedFields()).isZero();
    }

    @Test
    void headersNameTheExhaustedLimitWhenTheBodyDoesNot() {
        ProviderSignal signal = normalise(OPENAI, 429, "",
                "x-ratelimit-remaining-requests", "12",
                "x-ratelimit-remaining-tokens", "0",
                "x-ratelimit-reset-tokens", "2s");
        assertThat(signal.limitHit()).contains(LimitKind.TOKENS);
        assertThat(signal.retryAfterMillis()).hasValue(2_000);
        assertThat(signal.retryable()).isTrue();
    }

    @Test
    void xShouldRetryOverridesTheStatus() {
        assertThat(normalise(OPENAI, 500, "", "x-should-retry", "false").retryable()).isFalse();
        assertThat(normalise(OPENAI, 400, "", "x-should-retry", "true").retryable()).isTrue();
        ProviderSignal garbage = normalise(OPENAI, 400, "", "x-should-retry", "maybe");
        assertThat(garbage.retryable()).isFalse();
        assertThat(garbage.malformedFields()).isEqualTo(1);
    }

    @Test
    void anthropicHeadersAreNotReadForOpenAi() {
        assertThat(normalise(OPENAI, 200, "", "anthropic-ratelimit-requests-limit", "50").observations()).isEmpty();
    }

    static LimitObservation observation(LimitKind kind, long limit, long remaining, long reset, String source) {
        return new LimitObservation(kind, OptionalLong.of(limit), OptionalLong.of(remaining), OptionalLong.of(reset), source);
    }

    static String body(String message, String type, String codeJson) {
        return "{\"error\":{\"message\":\"" + message + "\",\"type\":\"" + type + "\",\"param\":null,\"code\":"
                + codeJson + "}}";
    }
}
