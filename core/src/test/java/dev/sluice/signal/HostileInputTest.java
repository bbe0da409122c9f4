package dev.sluice.signal;

import static dev.sluice.signal.Responses.normalise;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Untrusted input: ignored, counted, never thrown, never turned into invented state. */
class HostileInputTest {

    private static final ProviderKind ALL = ProviderKind.OPENAI_COMPATIBLE;

    static Stream<Arguments> hostileHeaders() {
        String huge = "9".repeat(10_000);
        return Stream.of(
                Arguments.of("negative limit", "x-ratelimit-limit-requests", "-60"),
                Arguments.of("huge limit", "x-ratelimit-limit-tokens", "99999999999999999999"),
                Arguments.of("decimal remaining", "x-ratelimit-remaining-tokens", "12.5"),
                Arguments.of("NaN remaining", "x-ratelimit-remaining-requests", "NaN"),
                Arguments.of("Infinity limit", "anthropic-ratelimit-tokens-limit", "Infinity"),
                Arguments.of("hex limit", "anthropic-ratelimit-requests-limit", "0x10"),
                Arguments.of("negative Go duration", "x-ratelimit-reset-requests", "-1s"),
                Arguments.of("Go duration overflow", "x-ratelimit-reset-tokens", "9999999999h"),
                Arguments.of("reset beyond 24 h", "x-ratelimit-reset-tokens", "25h"),
                Arguments.of("garbage date", "anthropic-ratelimit-tokens-reset", "2026-99-99T99:99:99Z"),
                Arguments.of("10,000-character limit", "x-ratelimit-limit-requests", huge),
                Arguments.of("10,000-character retry-after", "retry-after", huge),
                Arguments.of("10,000-character policy", "RateLimit-Policy", "\"p\";q=" + huge),
                Arguments.of("control characters", "retry-after", "\u0000\u0007"),
                Arguments.of("unicode digits", "retry-after", "١٢٣"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileHeaders")
    void aHostileHeaderIsIgnoredAndCountedOnce(String form, String name, String value) {
        ProviderSignal signal = normalise(ALL, 429, "", name, value);
        assertThat(signal.malformedFields()).isEqualTo(1);
        assertThat(signal.observations()).isEmpty();
        assertThat(signal.retryAfterMillis()).isEmpty();
        assertThat(signal.limitHit()).isEmpty();
        assertThat(signal.retryable()).isTrue();
    }

    static Stream<Arguments> hostileBodies() {
        return Stream.of(
                Arguments.of("truncated JSON", "{\"error\":{\"code\":\"429\",\"message\":\"Rate limit is exceeded."),
                Arguments.of("deeply nested", "{\"error\":".repeat(5_000) + "1" + "}".repeat(5_000)),
                Arguments.of("deeply nested arrays", "[".repeat(20_000)),
                Arguments.of("over 64 KiB", "{\"error\":{\"message\":\"" + "x".repeat(70_000) + "\"}}"),
                Arguments.of("NaN number", "{\"error\":{\"code\":NaN}}"),
                Arguments.of("trailing garbage", "{\"error\":{}} trailing"),
                Arguments.of("single quotes", "{'error':{'message':'x'}}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileBodies")
    void aBrokenJsonBodyIsCountedOnce(String form, String body) {
        ProviderSignal signal = normalise(ALL, 429, body);
        assertThat(signal.malformedFields()).isEqualTo(1);
        assertThat(signal.status()).isEqualTo(SignalStatus.RATE_LIMITED);
        assertThat(signal.retryable()).isTrue();
    }

    @Test
    void aTruncatedBodyStillYieldsItsReadableWaitHint() {
        ProviderSignal signal = normalise(ALL, 429,
                "{\"error\":{\"message\":\"Rate limit reached on requests per min (RPM). Please try again in 20s.");
        assertThat(signal.retryAfterMillis()).hasValue(20_000);
        assertThat(signal.limitHit()).contains(LimitKind.REQUESTS);
        assertThat(signal.malformedFields()).isEqualTo(1);
    }

    @Test
    void plainTextAndHtmlBodiesAreNotMalformedJson() {
        assertThat(normalise(ALL, 502, "<html><body>502 Bad Gateway</body></html>").malformedFields()).isZero();
        ProviderSignal text = normalise(ALL, 429, "Too Many Requests. Retry after 3 seconds.");
        assertThat(text.malformedFields()).isZero();
        assertThat(text.retryAfterMillis()).hasValue(3_000);
        assertThat(text.limitHit()).contains(LimitKind.REQUESTS);
    }

    @Test
    void wrongJsonTypesAreHarmless() {
        for (String body : List.of("null", "42", "\"text\"", "[]", "[1,2]", "{\"error\":[]}", "{\"error\":\"text\"}",
                "{\"error\":{\"message\":42,\"type\":[],\"code\":{},\"details\":\"x\"}}",
                "{\"error\":{\"details\":[1,null,{\"@type\":5},{\"@type\":\"x.QuotaFailure\",\"violations\":{}}]}}")) {
            ProviderSignal signal = normalise(ALL, 429, body);
            assertThat(signal.status()).as(body).isEqualTo(SignalStatus.RATE_LIMITED);
            assertThat(signal.retryAfterMillis()).as(body).isEmpty();
        }
    }

    @Test
    void tooManyLinesOfOneHeaderAreCappedAndCounted() {
        List<String> lines = new ArrayList<>(Collections.nCopies(10_000, "1"));
        ProviderSignal signal = normalise(ALL, 429, Headers.of(Map.of("retry-after", lines)), "");
        assertThat(signal.retryAfterMillis()).hasValue(1_000);
        assertThat(signal.malformedFields()).isEqualTo(1);
    }

    @Test
    void aHeadersImplementationReturningNullIsTreatedAsAbsent() {
        ProviderSignal signal = normalise(ALL, 429, name -> null, "");
        assertThat(signal.malformedFields()).isZero();
        assertThat(signal.observations()).isEmpty();
    }

    @Test
    void extremeClocksNeverOverflow() {
        SignalNormaliser normaliser = new SignalNormaliser(ALL);
        Headers headers = Responses.headers("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT",
                "anthropic-ratelimit-tokens-reset", "9999-12-31T23:59:59Z");
        for (long now : new long[] {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE}) {
            ProviderSignal signal = normaliser.normalise(429, headers, "", now);
            assertThat(signal.retryAfterMillis().getAsLong()).isBetween(0L, ProviderSignal.MAX_DELAY_MILLIS);
        }
    }
}
