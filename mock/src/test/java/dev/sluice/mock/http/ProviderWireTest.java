package dev.sluice.mock.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.mock.limits.Admission;
import dev.sluice.mock.limits.ProviderLimitModel;
import dev.sluice.mock.limits.ProviderLimits;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The simulator's view: provider-shaped signals from the model alone, no sockets. */
class ProviderWireTest {

    private static final long NOW_MILLIS = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    @Test
    void successHeadersFollowTheSnapshot() {
        ProviderLimits limits = ProviderLimits.openAi(600, 60_000);
        var model = new ProviderLimitModel(limits);
        model.tryAdmit("t", 900, 0, 100, 0);
        var headers = ProviderWire.successHeaders(MockConfig.defaults(Flavour.OPENAI), limits, model.snapshot(0), NOW_MILLIS);
        assertThat(headers.get("x-ratelimit-remaining-tokens")).containsExactly("59000");
        assertThat(headers.get("x-ratelimit-reset-tokens")).containsExactly("1s");
        assertThat(headers.get("x-ratelimit-remaining-requests")).containsExactly("599");
    }

    @Test
    void anthropicRejectionIsTheServersBodyAndHeaders() {
        ProviderLimits limits = ProviderLimits.anthropic(0, 40_000, 0);
        var model = new ProviderLimitModel(limits);
        model.tryAdmit("t", 40_000, 0, 0, 0);
        Admission refused = model.tryAdmit("t", 1_000, 0, 0, 0);
        var r = ProviderWire.rejection(MockConfig.defaults(Flavour.ANTHROPIC), limits, refused, "claude-opus-4-5",
                model.snapshot(0), NOW_MILLIS);
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.body()).contains("\"type\":\"rate_limit_error\"")
                .contains("of 40,000 input tokens per minute");
        // 1,000 tokens at 40,000 a minute: 1.5 s, announced as 2 whole seconds.
        assertThat(r.header("retry-after")).contains("2");
        assertThat(r.header("anthropic-ratelimit-input-tokens-remaining")).contains("0");
        assertThat(r.header("anthropic-ratelimit-input-tokens-reset")).contains("2026-01-01T00:01:00Z");
    }

    @Test
    void anAcceptedAdmissionIsNotARejection() {
        var model = new ProviderLimitModel(ProviderLimits.UNLIMITED);
        Admission ok = model.tryAdmit("t", 1, 0, 1, 0);
        assertThatThrownBy(() -> ProviderWire.rejection(MockConfig.defaults(Flavour.OPENAI), ProviderLimits.UNLIMITED, ok,
                "gpt-4o", model.snapshot(0), NOW_MILLIS)).isInstanceOf(IllegalArgumentException.class);
    }
}
