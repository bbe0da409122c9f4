package dev.sluice.signal;

import static dev.sluice.signal.Responses.normalise;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** provider-semantics.md §5: OpenRouter and Bedrock-style bodies behind an OpenAI-compatible route. */
class OpenAiCompatibleSignalTest {

    static Stream<Arguments> bodies() {
        return Stream.of(
                Arguments.of("OpenRouter numeric code with Retry-After",
                        "{\"error\":{\"code\":429,\"message\":\"Rate limit exceeded\",\"metadata\":"
                                + "{\"provider_name\":\"x\",\"raw\":\"upstream\"}}}",
                        new String[] {"Retry-After", "4"},
                        Optional.empty(), OptionalLong.of(4_000), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("OpenRouter per-day free model limit",
                        "{\"error\":{\"code\":429,\"message\":\"Rate limit exceeded: free-models-per-day.\"}}",
                        new String[] {},
                        Optional.of(LimitKind.DAILY_QUOTA), OptionalLong.empty(), false,
                        ProviderSignal.REASON_QUOTA_EXHAUSTED),
                Arguments.of("Bedrock too many tokens",
                        "{\"message\":\"Too many tokens, please wait before trying again.\"}",
                        new String[] {"x-amzn-ErrorType", "ThrottlingException"},
                        Optional.of(LimitKind.TOKENS), OptionalLong.empty(), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("Bedrock too many requests",
                        "{\"message\":\"Too many requests, please wait before trying again. You have sent too many "
                                + "requests.\"}",
                        new String[] {},
                        Optional.of(LimitKind.REQUESTS), OptionalLong.empty(), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("Bedrock request rate",
                        "{\"Message\":\"Your request rate is too high. Reduce the frequency of requests.\"}",
                        new String[] {},
                        Optional.of(LimitKind.REQUESTS), OptionalLong.empty(), true, ProviderSignal.REASON_RATE_LIMITED),
                Arguments.of("both vendor header families on one response",
                        "",
                        new String[] {"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "750ms",
                            "anthropic-ratelimit-requests-remaining", "3"},
                        Optional.of(LimitKind.TOKENS), OptionalLong.of(750), true, ProviderSignal.REASON_RATE_LIMITED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bodies")
    void readsOtherDialects(String form, String body, String[] headers, Optional<LimitKind> limitHit,
            OptionalLong wait, boolean retryable, String reason) {
        ProviderSignal signal = normalise(ProviderKind.OPENAI_COMPATIBLE, 429, body, headers);
        assertThat(signal.limitHit()).isEqualTo(limitHit);
        assertThat(signal.retryAfterMillis()).isEqualTo(wait);
        assertThat(signal.retryable()).isEqualTo(retryable);
        assertThat(signal.reason()).isEqualTo(reason);
        assertThat(signal.malformedFields()).isZero();
    }
}
