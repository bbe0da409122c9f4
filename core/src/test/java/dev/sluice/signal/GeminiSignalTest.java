package dev.sluice.signal;

import static dev.sluice.signal.Responses.normalise;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** provider-semantics.md §4: Gemini API, Vertex AI and the OpenAI-compatible endpoint. */
class GeminiSignalTest {

    private static final ProviderKind GEMINI = ProviderKind.GEMINI;

    static String body(String message, String violations, String retryDelay) {
        String retry = retryDelay == null ? ""
                : ",{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"" + retryDelay + "\"}";
        return "{\"error\":{\"code\":429,\"message\":\"" + message + "\",\"status\":\"RESOURCE_EXHAUSTED\","
                + "\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":["
                + violations + "]},{\"@type\":\"type.googleapis.com/google.rpc.Help\",\"links\":[{\"description\":"
                + "\"Learn more about Gemini API quotas\",\"url\":\"https://ai.google.dev/gemini-api/docs/rate-limits\"}]}"
                + retry + "]}}";
    }

    static String violation(String metric, String quotaId, String quotaValue) {
        return "{\"quotaMetric\":\"" + metric + "\",\"quotaId\":\"" + quotaId + "\",\"quotaDimensions\":"
                + "{\"location\":\"global\",\"model\":\"gemini-2.5-flash\"}"
                + (quotaValue == null ? "" : ",\"quotaValue\":\"" + quotaValue + "\"") + "}";
    }

    private static final String QUOTA_MESSAGE =
            "You exceeded your current quota, please check your plan and billing details.";
    private static final String INPUT_PER_MINUTE = violation(
            "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count",
            "GenerateContentInputTokensPerModelPerMinute-FreeTier", "250000");
    private static final String REQUESTS_PER_MINUTE = violation(
            "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "10");
    private static final String REQUESTS_PER_DAY = violation(
            "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "250");

    static Stream<Arguments> bodies() {
        return Stream.of(
                Arguments.of("input tokens per minute, retryDelay 26s",
                        body(QUOTA_MESSAGE, INPUT_PER_MINUTE, "26s"),
                        Optional.of(LimitKind.INPUT_TOKENS), OptionalLong.of(26_000), true,
                        ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("requests per minute, fractional retryDelay",
                        body(QUOTA_MESSAGE, REQUESTS_PER_MINUTE, "25.465784708s"),
                        Optional.of(LimitKind.REQUESTS), OptionalLong.of(25_466), true,
                        ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("per day wins over per minute",
                        body(QUOTA_MESSAGE, REQUESTS_PER_MINUTE + "," + REQUESTS_PER_DAY, "40s"),
                        Optional.of(LimitKind.DAILY_QUOTA), OptionalLong.of(40_000), false,
                        ProviderSignal.REASON_QUOTA_EXHAUSTED),
                Arguments.of("zero quota never succeeds",
                        body("Quota exceeded for metric: generate_content_free_tier_requests, limit: 0, model: x",
                                violation("generativelanguage.googleapis.com/generate_content_free_tier_requests",
                                        "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "0"), "5s"),
                        Optional.of(LimitKind.REQUESTS), OptionalLong.of(5_000), false, ProviderSignal.REASON_ZERO_QUOTA),
                Arguments.of("no RetryInfo: the message hint",
                        body(QUOTA_MESSAGE + " Please retry in 25.46s.", INPUT_PER_MINUTE, null),
                        Optional.of(LimitKind.INPUT_TOKENS), OptionalLong.of(25_460), true,
                        ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("no quotaValue",
                        body(QUOTA_MESSAGE, violation("m", "GenerateRequestsPerMinutePerProjectPerModel", null), "1s"),
                        Optional.of(LimitKind.REQUESTS), OptionalLong.of(1_000), true,
                        ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("Vertex shared capacity, no details",
                        "{\"error\":{\"code\":429,\"message\":\"Resource exhausted, please try again later.\","
                                + "\"status\":\"RESOURCE_EXHAUSTED\"}}",
                        Optional.empty(), OptionalLong.empty(), true, ProviderSignal.REASON_PROVIDER_CAPACITY),
                Arguments.of("Vertex provisioned throughput",
                        "{\"error\":{\"code\":429,\"message\":\"Too many requests. Exceeded the Provisioned "
                                + "Throughput.\",\"status\":\"RESOURCE_EXHAUSTED\"}}",
                        Optional.of(LimitKind.REQUESTS), OptionalLong.empty(), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("array-wrapped body from the OpenAI-compatible endpoint",
                        "[{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\","
                                + "\"status\":\"RESOURCE_EXHAUSTED\"}}]",
                        Optional.empty(), OptionalLong.empty(), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("2024 ErrorInfo form",
                        "{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\","
                                + "\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":"
                                + "\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"RATE_LIMIT_EXCEEDED\","
                                + "\"domain\":\"googleapis.com\",\"metadata\":{\"service\":"
                                + "\"generativelanguage.googleapis.com\",\"quota_limit\":"
                                + "\"GenerateContentRequestsPerMinutePerProjectPerRegion\",\"quota_metric\":"
                                + "\"generativelanguage.googleapis.com/generate_content_requests\","
                                + "\"quota_limit_value\":\"60\",\"consumer\":\"projects/1\"}}]}}",
                        Optional.of(LimitKind.REQUESTS), OptionalLong.empty(), true, ProviderSignal.REASON_RATE_LIMITED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bodies")
    void reads429Bodies(String form, String body, Optional<LimitKind> limitHit, OptionalLong wait,
            boolean retryable, String reason) {
        ProviderSignal signal = normalise(GEMINI, 429, body);
        assertThat(signal.status()).isEqualTo(SignalStatus.RATE_LIMITED);
        assertThat(signal.limitHit()).isEqualTo(limitHit);
        assertThat(signal.retryAfterMillis()).isEqualTo(wait);
        assertThat(signal.retryable()).isEqualTo(retryable);
        assertThat(signal.reason()).isEqualTo(reason);
        assertThat(signal.malformedFields()).isZero();
    }

    @Test
    void violationsBecomeObservationsWithTheirQuota() {
        ProviderSignal signal = normalise(GEMINI, 429, body(QUOTA_MESSAGE, INPUT_PER_MINUTE + "," + REQUESTS_PER_DAY, "26s"));
        assertThat(signal.observations()).containsExactly(
                new LimitObservation(LimitKind.INPUT_TOKENS, OptionalLong.of(250_000), OptionalLong.empty(),
                        OptionalLong.empty(), "QuotaFailure GenerateContentInputTokensPerModelPerMinute-FreeTier"),
                new LimitObservation(LimitKind.DAILY_QUOTA, OptionalLong.of(250), OptionalLong.empty(),
                        OptionalLong.empty(), "QuotaFailure GenerateRequestsPerDayPerProjectPerModel-FreeTier"));
    }

    @Test
    void errorInfoBecomesAnObservation() {
        ProviderSignal signal = normalise(GEMINI, 429, "{\"error\":{\"details\":[{\"@type\":"
                + "\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"RATE_LIMIT_EXCEEDED\",\"metadata\":"
                + "{\"quota_limit\":\"GenerateContentInputTokensPerModelPerMinute\",\"quota_limit_value\":\"1000000\"}}]}}");
        assertThat(signal.observations()).singleElement().satisfies(o -> {
            assertThat(o.kind()).isEqualTo(LimitKind.INPUT_TOKENS);
            assertThat(o.limit()).hasValue(1_000_000);
        });
    }

    @Test
    void retryAfterHeaderStillWinsOverRetryInfo() {
        assertThat(normalise(GEMINI, 429, body(QUOTA_MESSAGE, INPUT_PER_MINUTE, "26s"), "retry-after", "3")
                .retryAfterMillis()).hasValue(3_000);
    }

    static Stream<Arguments> malformedDetails() {
        return Stream.of(
                Arguments.of("negative retryDelay", body(QUOTA_MESSAGE, INPUT_PER_MINUTE, "-5s")),
                Arguments.of("retryDelay without unit", body(QUOTA_MESSAGE, INPUT_PER_MINUTE, "26")),
                Arguments.of("NaN retryDelay", body(QUOTA_MESSAGE, INPUT_PER_MINUTE, "NaNs")),
                Arguments.of("Infinity retryDelay", body(QUOTA_MESSAGE, INPUT_PER_MINUTE, "Infinitys")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedDetails")
    void malformedRetryDelayIsIgnoredAndCounted(String form, String body) {
        ProviderSignal signal = normalise(GEMINI, 429, body);
        assertThat(signal.retryAfterMillis()).isEmpty();
        assertThat(signal.malformedFields()).isEqualTo(1);
        assertThat(signal.limitHit()).contains(LimitKind.INPUT_TOKENS);
    }

    @Test
    void malformedQuotaValueIsIgnoredAndCounted() {
        ProviderSignal signal = normalise(GEMINI, 429, body(QUOTA_MESSAGE,
                violation("m", "GenerateRequestsPerMinutePerProjectPerModel", "-3"), "1s"));
        assertThat(signal.observations()).isEmpty();
        assertThat(signal.malformedFields()).isEqualTo(1);
        assertThat(signal.retryable()).isTrue();
    }

    @Test
    void vendorHeadersAreNotReadForGemini() {
        assertThat(normalise(GEMINI, 200, "", "x-ratelimit-limit-requests", "5").observations()).isEmpty();
    }
}
