package dev.sluice.signal;

import static dev.sluice.signal.Responses.normalise;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** provider-semantics.md §6: RateLimit-Policy and RateLimit structured fields, and the obsolete trio. */
class IetfRateLimitTest {

    private static final ProviderKind ANY = ProviderKind.GEMINI;

    private static LimitObservation policy(LimitKind kind, long quota, OptionalLong remaining, OptionalLong reset,
            String name) {
        return new LimitObservation(kind, OptionalLong.of(quota), remaining, reset, "RateLimit \"" + name + "\"");
    }

    static Stream<Arguments> fields() {
        return Stream.of(
                Arguments.of("one policy with its current state",
                        new String[] {"RateLimit-Policy", "\"default\";q=100;w=60", "RateLimit", "\"default\";r=50;t=30"},
                        new LimitObservation[] {policy(LimitKind.REQUESTS, 100, OptionalLong.of(50), OptionalLong.of(30_000), "default")}),
                Arguments.of("two policies in one line, daily window",
                        new String[] {"RateLimit-Policy", "\"burst\";q=100;w=60,\"daily\";q=1000;w=86400",
                            "RateLimit", "\"burst\";r=99,\"daily\";r=900;t=3600"},
                        new LimitObservation[] {
                            policy(LimitKind.REQUESTS, 100, OptionalLong.of(99), OptionalLong.empty(), "burst"),
                            policy(LimitKind.DAILY_QUOTA, 1000, OptionalLong.of(900), OptionalLong.of(3_600_000), "daily")}),
                Arguments.of("split over several header lines",
                        new String[] {"RateLimit-Policy", "\"burst\";q=100;w=60", "RateLimit-Policy", "\"daily\";q=1000;w=86400",
                            "RateLimit", "\"daily\";r=900", "RateLimit", "\"burst\";r=1"},
                        new LimitObservation[] {
                            policy(LimitKind.REQUESTS, 100, OptionalLong.of(1), OptionalLong.empty(), "burst"),
                            policy(LimitKind.DAILY_QUOTA, 1000, OptionalLong.of(900), OptionalLong.empty(), "daily")}),
                Arguments.of("quota units and a partition key",
                        new String[] {"RateLimit-Policy", "\"peruser\";q=65535;qu=\"content-bytes\";w=10;pk=:sdfjLJUOUH==:,"
                                + "\"conc\";q=4;qu=\"concurrent-requests\",\"tok\";q=9000;qu=\"tokens\";w=60"},
                        new LimitObservation[] {
                            policy(LimitKind.UNKNOWN, 65535, OptionalLong.empty(), OptionalLong.empty(), "peruser"),
                            policy(LimitKind.CONCURRENCY, 4, OptionalLong.empty(), OptionalLong.empty(), "conc"),
                            policy(LimitKind.TOKENS, 9000, OptionalLong.empty(), OptionalLong.empty(), "tok")}),
                Arguments.of("token policy names from earlier drafts and vendor parameters",
                        new String[] {"RateLimit-Policy", "default;q=10;acme-tier=\"gold\"", "RateLimit", "default;r=0;t=2"},
                        new LimitObservation[] {policy(LimitKind.REQUESTS, 10, OptionalLong.of(0), OptionalLong.of(2_000), "default")}),
                Arguments.of("RateLimit without a policy",
                        new String[] {"RateLimit", "\"x\";r=5;t=1"},
                        new LimitObservation[] {new LimitObservation(LimitKind.UNKNOWN, OptionalLong.empty(),
                                OptionalLong.of(5), OptionalLong.of(1_000), "RateLimit \"x\"")}),
                Arguments.of("obsolete draft trio",
                        new String[] {"RateLimit-Limit", "100", "RateLimit-Remaining", "10", "RateLimit-Reset", "30"},
                        new LimitObservation[] {new LimitObservation(LimitKind.UNKNOWN, OptionalLong.of(100),
                                OptionalLong.of(10), OptionalLong.of(30_000), "RateLimit-Limit")}),
                Arguments.of("obsolete limit with a quota policy",
                        new String[] {"RateLimit-Limit", "10, 10;w=1, 50;w=60"},
                        new LimitObservation[] {new LimitObservation(LimitKind.UNKNOWN, OptionalLong.of(10),
                                OptionalLong.empty(), OptionalLong.empty(), "RateLimit-Limit")}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fields")
    void readsStructuredFields(String form, String[] headers, LimitObservation[] expected) {
        ProviderSignal signal = normalise(ANY, 200, "", headers);
        assertThat(signal.observations()).containsExactly(expected);
        assertThat(signal.malformedFields()).isZero();
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("policy without q", new String[] {"RateLimit-Policy", "\"a\";w=60"}, 1),
                Arguments.of("negative q", new String[] {"RateLimit-Policy", "\"a\";q=-1"}, 1),
                Arguments.of("zero window", new String[] {"RateLimit-Policy", "\"a\";q=1;w=0"}, 1),
                Arguments.of("decimal window", new String[] {"RateLimit-Policy", "\"a\";q=1;w=1.5"}, 1),
                Arguments.of("RateLimit without r", new String[] {"RateLimit", "\"a\";t=5"}, 1),
                Arguments.of("negative t", new String[] {"RateLimit", "\"a\";r=1;t=-5"}, 1),
                Arguments.of("unparseable field", new String[] {"RateLimit", "\"a\";r=1,,"}, 1),
                Arguments.of("integer policy name", new String[] {"RateLimit-Policy", "5;q=1"}, 1),
                Arguments.of("t over a day", new String[] {"RateLimit", "\"a\";r=1;t=999999999999999"}, 1),
                Arguments.of("huge obsolete reset", new String[] {"RateLimit-Reset", "999999999999999999"}, 1),
                Arguments.of("obsolete garbage",
                        new String[] {"RateLimit-Limit", "lots", "RateLimit-Remaining", "-4", "RateLimit-Reset", "soon"}, 3),
                Arguments.of("10,000-character field", new String[] {"RateLimit", "\"a\";r=1," + "x".repeat(10_000)}, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void malformedPartsAreIgnoredAndCounted(String form, String[] headers, int malformed) {
        ProviderSignal signal = normalise(ANY, 200, "", headers);
        assertThat(signal.malformedFields()).isEqualTo(malformed);
        signal.observations().forEach(o -> assertThat(o.resetAfterMillis().orElse(0)).isLessThanOrEqualTo(86_400_000));
    }

    @Test
    void oneBadMemberDoesNotSpoilTheOthersButABadFieldDoes() {
        ProviderSignal oneBad = normalise(ANY, 200, "", "RateLimit-Policy", "\"a\";q=-1,\"b\";q=5");
        assertThat(oneBad.observations()).singleElement().satisfies(o -> assertThat(o.limit()).hasValue(5));
        ProviderSignal badField = normalise(ANY, 200, "", "RateLimit-Policy", "\"a\";q=1,\"b\";q=5,(inner)");
        assertThat(badField.observations()).isEmpty();
    }

    @Test
    void problemJsonViolatedPoliciesNameTheLimit() {
        String body = "{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Quota exceeded\",\"violated-policies\":[\"daily\"]}";
        ProviderSignal signal = normalise(ANY, 429, body,
                "RateLimit-Policy", "\"burst\";q=100;w=60,\"daily\";q=1000;w=86400",
                "RateLimit", "\"burst\";r=40,\"daily\";r=0;t=7200");
        assertThat(signal.limitHit()).contains(LimitKind.DAILY_QUOTA);
        assertThat(signal.retryAfterMillis()).hasValue(7_200_000);
        assertThat(signal.retryable()).isFalse();
        assertThat(signal.reason()).isEqualTo(ProviderSignal.REASON_QUOTA_EXHAUSTED);
    }

    @Test
    void abnormalUsageProblemType() {
        String body = "{\"type\":\"https://iana.org/assignments/http-problem-types#abnormal-usage-detected\"}";
        assertThat(normalise(ANY, 429, body).reason()).isEqualTo(ProviderSignal.REASON_ABNORMAL_USAGE);
    }

    @Test
    void reducedCapacityProblemTypeOn503IsOverloaded() {
        String body = "{\"type\":\"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity\"}";
        ProviderSignal signal = normalise(ANY, 503, body, "retry-after", "10");
        assertThat(signal.status()).isEqualTo(SignalStatus.OVERLOADED);
        assertThat(signal.reason()).isEqualTo(ProviderSignal.REASON_OVERLOADED);
        assertThat(signal.retryAfterMillis()).hasValue(10_000);
    }
}
