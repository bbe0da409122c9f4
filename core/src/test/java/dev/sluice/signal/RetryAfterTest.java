package dev.sluice.signal;

import static dev.sluice.signal.Responses.normalise;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** provider-semantics.md §7 and §9.3: every wait-hint form, and which one wins. */
class RetryAfterTest {

    private static final ProviderKind ANY = ProviderKind.OPENAI_COMPATIBLE;

    static Stream<Arguments> hintForms() {
        return Stream.of(
                Arguments.of("delay-seconds", "retry-after", "120", 120_000L),
                Arguments.of("zero seconds", "retry-after", "0", 0L),
                Arguments.of("fractional seconds", "retry-after", "1.5", 1_500L),
                Arguments.of("fraction rounds up", "retry-after", "0.0001", 1L),
                Arguments.of("surrounding spaces", "retry-after", "  7 ", 7_000L),
                Arguments.of("IMF-fixdate", "retry-after", "Thu, 01 Jan 2026 00:00:30 GMT", 30_000L),
                Arguments.of("RFC 850 date", "retry-after", "Thursday, 01-Jan-26 00:01:00 GMT", 60_000L),
                Arguments.of("asctime date", "retry-after", "Thu Jan  1 00:00:05 2026", 5_000L),
                Arguments.of("past date means now", "retry-after", "Fri, 31 Dec 1999 23:59:59 GMT", 0L),
                Arguments.of("date equal to now", "retry-after", "Thu, 01 Jan 2026 00:00:00 GMT", 0L),
                Arguments.of("Azure retry-after-ms", "retry-after-ms", "2000", 2_000L),
                Arguments.of("retry-after-ms zero", "retry-after-ms", "0", 0L),
                Arguments.of("fractional retry-after-ms", "retry-after-ms", "10.2", 11L),
                Arguments.of("Azure SDK x-ms-retry-after-ms", "x-ms-retry-after-ms", "1500", 1_500L),
                Arguments.of("upper-case name", "Retry-After", "3", 3_000L));
    }

    @ParameterizedTest(name = "{0}: {1}: {2}")
    @MethodSource("hintForms")
    void readsEveryHintForm(String form, String header, String value, long expectedMillis) {
        ProviderSignal signal = normalise(ANY, 429, "", header, value);
        assertThat(signal.retryAfterMillis()).hasValue(expectedMillis);
        assertThat(signal.malformedFields()).isZero();
    }

    static Stream<Arguments> malformedHints() {
        return Stream.of(
                Arguments.of("negative", "retry-after", "-5"),
                Arguments.of("NaN", "retry-after", "NaN"),
                Arguments.of("Infinity", "retry-after", "Infinity"),
                Arguments.of("exponent", "retry-after", "1e3"),
                Arguments.of("signed", "retry-after", "+5"),
                Arguments.of("trailing dot", "retry-after", "5."),
                Arguments.of("unit suffix", "retry-after", "5s"),
                Arguments.of("empty", "retry-after", ""),
                Arguments.of("garbage date", "retry-after", "Fri, 99 Foo 1999 99:99:99 GMT"),
                Arguments.of("RFC 3339 is not an HTTP-date", "retry-after", "2026-01-01T00:00:30Z"),
                Arguments.of("10,000 characters", "retry-after", "9".repeat(10_000)),
                Arguments.of("negative ms", "retry-after-ms", "-1"),
                Arguments.of("ms NaN", "retry-after-ms", "NaN"),
                Arguments.of("ms HTTP-date", "retry-after-ms", "Thu, 01 Jan 2026 00:00:30 GMT"),
                Arguments.of("x-ms garbage", "x-ms-retry-after-ms", "soon"));
    }

    @ParameterizedTest(name = "{0}: {1}: [{2}]")
    @MethodSource("malformedHints")
    void ignoresAndCountsMalformedHints(String form, String header, String value) {
        ProviderSignal signal = normalise(ANY, 429, "", header, value);
        assertThat(signal.retryAfterMillis()).isEmpty();
        assertThat(signal.malformedFields()).isEqualTo(1);
    }

    static Stream<Arguments> precedence() {
        String bodyHint = "{\"error\":{\"message\":\"Please try again in 9s.\",\"type\":\"requests\","
                + "\"code\":\"rate_limit_exceeded\"}}";
        return Stream.of(
                Arguments.of("retry-after-ms beats retry-after",
                        new String[] {"retry-after-ms", "250", "retry-after", "5"}, "", 250L),
                Arguments.of("retry-after-ms beats x-ms-retry-after-ms",
                        new String[] {"retry-after-ms", "250", "x-ms-retry-after-ms", "900"}, "", 250L),
                Arguments.of("x-ms-retry-after-ms beats retry-after",
                        new String[] {"x-ms-retry-after-ms", "900", "retry-after", "5"}, "", 900L),
                Arguments.of("retry-after beats the body hint",
                        new String[] {"retry-after", "5"}, bodyHint, 5_000L),
                Arguments.of("body hint beats reset headers",
                        new String[] {"x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "20s"},
                        bodyHint, 9_000L),
                Arguments.of("Retry-After beats IETF t",
                        new String[] {"RateLimit-Policy", "\"d\";q=10", "RateLimit", "\"d\";r=0;t=30", "retry-after", "4"},
                        "", 4_000L),
                Arguments.of("malformed retry-after-ms falls through to retry-after",
                        new String[] {"retry-after-ms", "oops", "retry-after", "6"}, "", 6_000L),
                Arguments.of("reset of the exhausted limit is the last resort",
                        new String[] {"x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "20s",
                            "x-ratelimit-remaining-tokens", "5000", "x-ratelimit-reset-tokens", "6m0s"},
                        "", 20_000L),
                Arguments.of("IETF t of the exhausted policy",
                        new String[] {"RateLimit-Policy", "\"d\";q=10", "RateLimit", "\"d\";r=0;t=30"}, "", 30_000L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("precedence")
    void followsTheDocumentedPrecedence(String rule, String[] headers, String body, long expectedMillis) {
        assertThat(normalise(ANY, 429, body, headers).retryAfterMillis()).hasValue(expectedMillis);
    }

    @Test
    void repeatedRetryAfterLinesTakeTheLongestValidWait() {
        ProviderSignal signal = normalise(ANY, 429, "", "retry-after", "2", "retry-after", "junk", "retry-after", "7");
        assertThat(signal.retryAfterMillis()).hasValue(7_000L);
        assertThat(signal.malformedFields()).isEqualTo(1);
    }

    @Test
    void waitIsClampedToTwentyFourHours() {
        ProviderSignal signal = normalise(ANY, 429, "", "retry-after", "99999999999999999999999999");
        assertThat(signal.retryAfterMillis()).hasValue(ProviderSignal.MAX_DELAY_MILLIS);
        assertThat(signal.limitHit()).contains(LimitKind.DAILY_QUOTA);
        assertThat(signal.retryable()).isFalse();
        assertThat(signal.malformedFields()).isZero();
    }

    @Test
    void resetHeadersAreNotAWaitHintOutsideA429() {
        ProviderSignal signal = normalise(ANY, 500, "", "x-ratelimit-remaining-requests", "0",
                "x-ratelimit-reset-requests", "20s");
        assertThat(signal.retryAfterMillis()).isEmpty();
    }

    @Test
    void aServerErrorStillCarriesItsExplicitHint() {
        assertThat(normalise(ANY, 503, "", "retry-after", "8").retryAfterMillis()).hasValue(8_000L);
    }

    @Test
    void aSuccessCarriesNoWaitEvenWithHeaders() {
        ProviderSignal signal = normalise(ANY, 200, "", "retry-after", "8");
        assertThat(signal.retryAfterMillis()).isEqualTo(OptionalLong.empty());
        assertThat(signal.retryable()).isFalse();
    }

    @Test
    void noHintAtAllLeavesTheWaitUnknown() {
        assertThat(normalise(ANY, 429, "").retryAfterMillis()).isEmpty();
    }
}
