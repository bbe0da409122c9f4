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

/** provider-semantics.md §2: Azure OpenAI headers and 429 bodies. */
class AzureSignalTest {

    private static final ProviderKind AZURE = ProviderKind.AZURE_OPENAI;

    @Test
    void readsIntegerSecondResetsAndRetryAfterMs() {
        ProviderSignal signal = normalise(AZURE, 429, "",
                "x-ratelimit-limit-requests", "60",
                "x-ratelimit-limit-tokens", "150000",
                "x-ratelimit-remaining-requests", "59",
                "x-ratelimit-remaining-tokens", "149984",
                "x-ratelimit-reset-requests", "10",
                "x-ratelimit-reset-tokens", "300",
                "retry-after-ms", "2000");
        assertThat(signal.observations()).containsExactly(
                OpenAiSignalTest.observation(LimitKind.REQUESTS, 60, 59, 10_000, "x-ratelimit-*-requests"),
                OpenAiSignalTest.observation(LimitKind.TOKENS, 150_000, 149_984, 300_000, "x-ratelimit-*-tokens"));
        assertThat(signal.retryAfterMillis()).hasValue(2_000);
        assertThat(signal.retryable()).isTrue();
    }

    @Test
    void minusOneMeansUnknownAndIsNotMalformed() {
        ProviderSignal signal = normalise(AZURE, 200, "",
                "x-ratelimit-limit-tokens", "-1",
                "x-ratelimit-remaining-tokens", "-1",
                "x-ratelimit-reset-tokens", "0");
        assertThat(signal.observations()).singleElement().satisfies(o -> {
            assertThat(o.limit()).isEmpty();
            assertThat(o.remaining()).isEmpty();
            assertThat(o.resetAfterMillis()).hasValue(0);
        });
        assertThat(signal.malformedFields()).isZero();
    }

    @Test
    void a429WithOnlyLimitAndRemainingHeaders() {
        ProviderSignal signal = normalise(AZURE, 429, "",
                "x-ratelimit-limit-requests", "8", "x-ratelimit-remaining-requests", "0");
        assertThat(signal.limitHit()).contains(LimitKind.REQUESTS);
        assertThat(signal.retryAfterMillis()).isEmpty();
        assertThat(signal.observations()).singleElement().satisfies(o -> assertThat(o.resetAfterMillis()).isEmpty());
    }

    static Stream<Arguments> bodies() {
        return Stream.of(
                Arguments.of("retry after 86400 seconds is quota exhaustion",
                        "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version "
                                + "2024-08-01-preview have exceeded token rate limit of your current OpenAI S0 pricing "
                                + "tier. Please retry after 86400 seconds. Please go here: "
                                + "https://aka.ms/oai/quotaincrease if you would like to further increase the default "
                                + "rate limit.",
                        Optional.of(LimitKind.DAILY_QUOTA), OptionalLong.of(86_400_000), false,
                        ProviderSignal.REASON_QUOTA_EXHAUSTED),
                Arguments.of("retry after 37 seconds is a rate limit",
                        "Requests to the ChatCompletions_Create Operation have exceeded token rate limit. "
                                + "Please retry after 37 seconds.",
                        Optional.of(LimitKind.TOKENS), OptionalLong.of(37_000), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("call rate limit",
                        "Requests to the Embeddings_Create Operation have exceeded call rate limit of your current "
                                + "pricing tier. Please retry after 2 seconds.",
                        Optional.of(LimitKind.REQUESTS), OptionalLong.of(2_000), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("try again in 2 seconds",
                        "Rate limit is exceeded. Try again in 2 seconds.",
                        Optional.empty(), OptionalLong.of(2_000), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("an hour is already quota exhaustion",
                        "Rate limit is exceeded. Try again in 3600 seconds.",
                        Optional.of(LimitKind.DAILY_QUOTA), OptionalLong.of(3_600_000), false,
                        ProviderSignal.REASON_QUOTA_EXHAUSTED),
                Arguments.of("two days are clamped to 24 h",
                        "Rate limit is exceeded. Please retry after 172800 seconds.",
                        Optional.of(LimitKind.DAILY_QUOTA), OptionalLong.of(86_400_000), false,
                        ProviderSignal.REASON_QUOTA_EXHAUSTED),
                Arguments.of("shared capacity",
                        "The server is temporarily unable to process your request. Please try again later.",
                        Optional.empty(), OptionalLong.empty(), true, ProviderSignal.REASON_PROVIDER_CAPACITY),
                Arguments.of("high demand",
                        "System is experiencing high demand. Try again in 5 seconds.",
                        Optional.empty(), OptionalLong.of(5_000), true, ProviderSignal.REASON_PROVIDER_CAPACITY));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bodies")
    void reads429Bodies(String form, String message, Optional<LimitKind> limitHit, OptionalLong wait,
            boolean retryable, String reason) {
        String body = "{\"error\":{\"code\":\"429\",\"message\":\"" + message + "\"}}";
        ProviderSignal signal = normalise(AZURE, 429, body);
        assertThat(signal.limitHit()).isEqualTo(limitHit);
        assertThat(signal.retryAfterMillis()).isEqualTo(wait);
        assertThat(signal.retryable()).isEqualTo(retryable);
        assertThat(signal.reason()).isEqualTo(reason);
    }

    @Test
    void retryAfterMsHeaderBeatsTheMessage() {
        String body = "{\"error\":{\"code\":\"429\",\"message\":\"Rate limit is exceeded. Try again in 2 seconds.\"}}";
        assertThat(normalise(AZURE, 429, body, "retry-after-ms", "1500").retryAfterMillis()).hasValue(1_500);
    }

    @ParameterizedTest(name = "reset [{0}] is malformed")
    @CsvSource(delimiter = '|', textBlock = """
            -5
            ten
            1e3
            NaN
            100000
            """)
    void malformedOrOverlongResetsAreIgnoredAndCounted(String reset) {
        ProviderSignal signal = normalise(AZURE, 200, "", "x-ratelimit-reset-requests", reset);
        assertThat(signal.observations()).isEmpty();
        assertThat(signal.malformedFields()).isEqualTo(1);
    }
}
