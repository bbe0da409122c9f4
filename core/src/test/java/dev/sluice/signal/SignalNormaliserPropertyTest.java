package dev.sluice.signal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Invariants over arbitrary and near-valid responses: total, bounded, consistent. */
class SignalNormaliserPropertyTest {

    private static final List<String> NAMES = List.of(
            "retry-after", "retry-after-ms", "x-ms-retry-after-ms", "x-should-retry",
            "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
            "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens",
            "x-ratelimit-reset-tokens_usage_based",
            "anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining",
            "anthropic-ratelimit-requests-reset", "anthropic-ratelimit-input-tokens-reset",
            "anthropic-ratelimit-output-tokens-remaining", "anthropic-priority-input-tokens-reset",
            "RateLimit-Policy", "RateLimit", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset");

    private static final List<String> BODIES = List.of(
            "{\"error\":{\"message\":\"Rate limit reached for gpt-4o on tokens per min (TPM): Limit 10000, Used 9524, "
                    + "Requested 497. Please try again in 125ms.\",\"type\":\"tokens\",\"param\":null,"
                    + "\"code\":\"rate_limit_exceeded\"}}",
            "{\"error\":{\"code\":\"429\",\"message\":\"Please retry after 86400 seconds.\"}}",
            "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"x\",\"details\":"
                    + "{\"error_code\":\"enforced_spend_limit_reached\"}}}",
            "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":"
                    + "\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"quotaId\":"
                    + "\"GenerateRequestsPerDayPerProjectPerModel-FreeTier\",\"quotaValue\":\"250\"}]},{\"@type\":"
                    + "\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"25.465784708s\"}]}}",
            "[{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\"}}]",
            "{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\",\"violated-policies\":[\"d\"]}");

    @Property(tries = 2000)
    void arbitraryResponsesNeverThrowAndStayInBounds(@ForAll("statuses") int status, @ForAll ProviderKind kind,
            @ForAll("headerMaps") Map<String, List<String>> headers, @ForAll("bodies") String body,
            @ForAll long now) {
        ProviderSignal signal = new SignalNormaliser(kind).normalise(status, Headers.of(headers), body, now);
        assertBounded(signal, status);
    }

    @Property(tries = 500)
    void entirelyRandomStringsNeverThrow(@ForAll String name, @ForAll String value, @ForAll String body,
            @ForAll @IntRange(min = 100, max = 599) int status) {
        ProviderSignal signal = new SignalNormaliser(ProviderKind.OPENAI_COMPATIBLE)
                .normalise(status, Headers.ofSingle(Map.of(name, value)), body, Responses.NOW);
        assertBounded(signal, status);
    }

    @Property
    void validDelaySecondsAreReadExactly(@ForAll @LongRange(min = 0, max = 86_400) long seconds,
            @ForAll ProviderKind kind) {
        ProviderSignal signal = Responses.normalise(kind, 429, "", "Retry-After", Long.toString(seconds));
        assertThat(signal.retryAfterMillis()).hasValue(seconds * 1000);
        assertThat(signal.retryable()).isEqualTo(seconds * 1000 < SignalNormaliser.QUOTA_WAIT_MILLIS);
    }

    @Property
    void retryAfterMsAlwaysWinsWhenValid(@ForAll @LongRange(min = 0, max = 3_600_000) long millis,
            @ForAll("nearValidValues") String retryAfter) {
        ProviderSignal signal = Responses.normalise(ProviderKind.AZURE_OPENAI, 429, BODIES.get(1),
                "retry-after-ms", Long.toString(millis), "retry-after", retryAfter);
        assertThat(signal.retryAfterMillis()).hasValue(millis);
    }

    @Property
    void headerNameCaseNeverMatters(@ForAll("nearValidValues") String value, @ForAll("names") String name,
            @ForAll @IntRange(min = 400, max = 599) int status) {
        SignalNormaliser normaliser = new SignalNormaliser(ProviderKind.OPENAI_COMPATIBLE);
        ProviderSignal lower = normaliser.normalise(status,
                Headers.ofSingle(Map.of(name.toLowerCase(Locale.ROOT), value)), "", Responses.NOW);
        ProviderSignal upper = normaliser.normalise(status,
                Headers.ofSingle(Map.of(name.toUpperCase(Locale.ROOT), value)), "", Responses.NOW);
        assertThat(upper).isEqualTo(lower);
    }

    private static void assertBounded(ProviderSignal signal, int status) {
        assertThat(signal.httpStatus()).isEqualTo(status);
        assertThat(signal.status()).isEqualTo(SignalNormaliser.statusOf(status));
        assertThat(signal.malformedFields()).isNotNegative();
        signal.retryAfterMillis().ifPresent(
                wait -> assertThat(wait).isBetween(0L, ProviderSignal.MAX_DELAY_MILLIS));
        signal.observations().forEach(o -> o.resetAfterMillis().ifPresent(
                reset -> assertThat(reset).isBetween(0L, ProviderSignal.MAX_DELAY_MILLIS)));
        if (signal.status() == SignalStatus.SUCCESS) {
            assertThat(signal.retryable()).isFalse();
            assertThat(signal.retryAfterMillis()).isEmpty();
            assertThat(signal.limitHit()).isEmpty();
        }
    }

    @Provide
    Arbitrary<Integer> statuses() {
        return Arbitraries.oneOf(
                Arbitraries.of(200, 400, 408, 409, 413, 429, 500, 503, 504, 529),
                Arbitraries.integers().between(-1, 1000));
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.of(NAMES);
    }

    @Provide
    Arbitrary<Map<String, List<String>>> headerMaps() {
        Arbitrary<String> name = Arbitraries.oneOf(
                names(),
                names().map(n -> n.toUpperCase(Locale.ROOT)),
                Arbitraries.strings().ofMaxLength(20));
        Arbitrary<List<String>> lines = nearValidValues().list().ofMinSize(1).ofMaxSize(3);
        return Arbitraries.maps(name, lines).ofMaxSize(8);
    }

    /** Values one edit away from something a provider really sends, plus a few hostile extremes. */
    @Provide
    Arbitrary<String> nearValidValues() {
        Arbitrary<String> numbers = Arbitraries.oneOf(
                Arbitraries.longs().map(String::valueOf),
                Arbitraries.doubles().map(String::valueOf),
                Arbitraries.bigIntegers().between(java.math.BigInteger.ZERO, java.math.BigInteger.TEN.pow(40))
                        .map(String::valueOf),
                Arbitraries.of("-1", "0", "1.5", "-0", "NaN", "Infinity", "-Infinity", "1e309", "0x1F", ".5", "5."));
        Arbitrary<String> durations = Combinators.combine(
                        Arbitraries.longs().between(-5, 100_000_000_000L),
                        Arbitraries.of("ns", "us", "µs", "ms", "s", "m", "h", "", "x", "s0", ".5s", "h60m"))
                .as((n, unit) -> n + unit);
        Arbitrary<String> dates = Arbitraries.longs().between(-100_000_000_000_000L, 400_000_000_000_000L)
                .map(ms -> java.time.Instant.ofEpochMilli(ms).toString());
        Arbitrary<String> httpDates = Arbitraries.of(
                "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 99999 08:49:37 GMT", "Sun, 06 Nov 1994 25:61:61 GMT",
                "Mon, 01 Jan 2100 00:00:00 GMT");
        Arbitrary<String> fields = Arbitraries.of(
                "\"burst\";q=100;w=60,\"daily\";q=1000;w=86400", "\"default\";r=0;t=30", "\"a\";r=-1",
                "\"a\";q=999999999999999;w=999999999999999", "\"a\";r=1;t=999999999999999", "(\"x\")", "\"a\";q=1,",
                "default;r=5", "\"a\";qu=\"concurrent-requests\";q=3");
        Arbitrary<String> base = Arbitraries.oneOf(numbers, durations, dates, httpDates, fields,
                Arbitraries.strings().ofMaxLength(40),
                Arbitraries.strings().withChars('9', '-', '.', 's', 'm', ' ', ',', ';', '"', '=').ofMaxLength(30),
                Arbitraries.of("9".repeat(10_000), "\"p\";q=1,".repeat(2_000)));
        return Arbitraries.oneOf(base, base.map(SignalNormaliserPropertyTest::mutate));
    }

    @Provide
    Arbitrary<String> bodies() {
        Arbitrary<String> real = Arbitraries.of(BODIES);
        Arbitrary<String> truncated = Combinators.combine(real, Arbitraries.integers().between(0, 400))
                .as((b, cut) -> b.substring(0, Math.min(cut, b.length())));
        Arbitrary<String> nested = Arbitraries.integers().between(1, 3000)
                .map(depth -> "{\"error\":".repeat(depth) + "{\"message\":\"retry in 5s\"}" + "}".repeat(depth));
        return Arbitraries.oneOf(real, truncated, nested, real.map(SignalNormaliserPropertyTest::mutate),
                Arbitraries.strings().ofMaxLength(200), Arbitraries.just(""));
    }

    /** One deterministic edit driven by the text itself: duplicate, cut or corrupt a character. */
    private static String mutate(String text) {
        if (text.isEmpty()) {
            return "-";
        }
        int at = Math.floorMod(text.hashCode(), text.length());
        return switch (Math.floorMod(text.hashCode() >> 8, 4)) {
            case 0 -> text.substring(0, at) + text.charAt(at) + text.substring(at);
            case 1 -> text.substring(0, at) + text.substring(at + 1);
            case 2 -> text.substring(0, at) + '\u0000' + text.substring(at + 1);
            default -> "-" + text;
        };
    }
}
