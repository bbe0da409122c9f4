package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.signal.Headers;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The normaliser's shortcut for 2xx answers without limit headers gives exactly the signal a full
 * probe gives: compared with a header view that cannot list its names and so is always probed.
 */
class SignalHeadersTest {

    private static final long NOW = 1_767_225_600_000L;

    private static ProviderSignal scanned(ProviderKind kind, int status, HttpHeaders m) {
        return new SignalNormaliser(kind).normalise(status, new SignalHeaders(m), "", NOW);
    }

    private static ProviderSignal probed(ProviderKind kind, int status, HttpHeaders m) {
        Headers unlisted = m::getAll;
        return new SignalNormaliser(kind).normalise(status, unlisted, "", NOW);
    }

    private static HttpHeaders headers(String... namesAndValues) {
        HttpHeaders m = new DefaultHttpHeaders();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            m.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return m;
    }

    @Test
    void namesAreMatchedByPrefixIgnoringCase() {
        SignalHeaders h = new SignalHeaders(headers("content-type", "application/json", "X-RateLimit-Remaining-Tokens", "5"));
        assertThat(h.anyNameStartsWith(List.of("x-ratelimit-"))).isTrue();
        assertThat(h.anyNameStartsWith(List.of("anthropic-", "retry-after"))).isFalse();
        assertThat(new SignalHeaders(headers()).anyNameStartsWith(List.of("x"))).isFalse();
    }

    @Test
    void aPlainSuccessIsTheSameWithAndWithoutTheShortcut() {
        HttpHeaders m = headers("content-type", "application/json", "x-request-id", "req_1", "openai-processing-ms", "12");
        for (ProviderKind kind : ProviderKind.values()) {
            ProviderSignal fast = scanned(kind, 200, m);
            assertThat(fast).isEqualTo(probed(kind, 200, m));
            assertThat(fast.reason()).isEqualTo(ProviderSignal.REASON_OK);
            assertThat(fast.observations()).isEmpty();
        }
    }

    @Test
    void aSuccessWithLimitOrRetryHeadersIsReadInFull() {
        List<HttpHeaders> cases = List.of(
                headers("x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests", "499",
                        "x-ratelimit-reset-requests", "120ms"),
                headers("anthropic-ratelimit-tokens-limit", "1000", "anthropic-ratelimit-tokens-remaining", "10",
                        "anthropic-ratelimit-tokens-reset", "2026-01-01T00:00:30Z"),
                headers("RateLimit-Policy", "\"burst\";q=100;w=60", "RateLimit", "\"burst\";r=50;t=30"),
                headers("retry-after", "garbage"),
                headers("x-ms-retry-after-ms", "-5"),
                headers("x-should-retry", "maybe"));
        for (HttpHeaders m : cases) {
            for (ProviderKind kind : ProviderKind.values()) {
                assertThat(scanned(kind, 200, m)).as(kind + " " + m).isEqualTo(probed(kind, 200, m));
            }
        }
        assertThat(scanned(ProviderKind.OPENAI, 200, cases.get(0)).observations()).hasSize(1);
        assertThat(scanned(ProviderKind.OPENAI, 200, cases.get(5)).malformedFields()).isEqualTo(1);
    }
}
