package dev.sluice.mock.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.mock.limits.HeaderReport;
import dev.sluice.mock.limits.ProviderBehaviour;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.mock.limits.RetryAfterMeaning;
import dev.sluice.mock.limits.TokenCounting;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The HTTP mock serves any member of the provider family, as the simulator does. */
class DrawnBehaviourServerTest extends MockHarness {

    private static final String GEMINI = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Hello there, mock!\"}]}],"
            + "\"generationConfig\":{\"maxOutputTokens\":50}}";

    @Test
    void usageIsTheProvidersOwnCount() {
        var s = start(MockConfig.builder(Flavour.OPENAI)
                .behaviour(ProviderBehaviour.REFERENCE.withCounting(new TokenCounting(1.2, 10))).build());
        var r = post(s, "/v1/chat/completions", CHAT, "x-mock-output-tokens", "10");
        assertThat(json(r).path("usage").path("prompt_tokens").asLong())
                .isEqualTo((long) Math.ceil(CHAT_PROMPT_TOKENS * 1.2 - 1e-9) + 10);
    }

    @Test
    void aProviderWithoutHeadersOrWaitHintsSendsNeither() {
        var b = ProviderBehaviour.REFERENCE.withHeaders(HeaderReport.ABSENT, Duration.ZERO)
                .withRetryAfter(RetryAfterMeaning.ABSENT);
        var s = start(MockConfig.builder(Flavour.OPENAI).limits(ProviderLimits.builder().rpm(1).build())
                .behaviour(b).build());
        var ok = post(s, "/v1/chat/completions", CHAT);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().firstValue("x-ratelimit-limit-requests")).isEmpty();
        var refused = post(s, "/v1/chat/completions", CHAT);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("retry-after")).isEmpty();
        assertThat(refused.headers().firstValue("retry-after-ms")).isEmpty();
        assertThat(json(refused).path("error").path("message").asText()).as("the body still names a wait")
                .contains("Please try again in");
    }

    @Test
    void geminiWithoutAWaitHintAnswersVertexStyle() {
        var s = start(MockConfig.builder(Flavour.GEMINI).limits(ProviderLimits.builder().rpm(1).build())
                .behaviour(ProviderBehaviour.REFERENCE.withRetryAfter(RetryAfterMeaning.ABSENT)).build());
        post(s, "/v1beta/models/gemini-2.5-flash:generateContent", GEMINI);
        var refused = post(s, "/v1beta/models/gemini-2.5-flash:generateContent", GEMINI);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).doesNotContain("RetryInfo");
    }

    @Test
    void staleHeadersRepeatAnEarlierState() {
        var s = start(MockConfig.builder(Flavour.OPENAI).limits(ProviderLimits.builder().rpm(100).build())
                .behaviour(ProviderBehaviour.REFERENCE.withHeaders(HeaderReport.STALE, Duration.ofSeconds(30))).build());
        var first = post(s, "/v1/chat/completions", CHAT).headers().firstValue("x-ratelimit-remaining-requests");
        var second = post(s, "/v1/chat/completions", CHAT).headers().firstValue("x-ratelimit-remaining-requests");
        assertThat(second).isEqualTo(first);
    }
}
