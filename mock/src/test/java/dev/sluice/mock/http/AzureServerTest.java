package dev.sluice.mock.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.mock.limits.ProviderLimits;
import org.junit.jupiter.api.Test;

class AzureServerTest extends MockHarness {

    private static final String CHAT_PATH = "/openai/deployments/my-gpt/chat/completions?api-version=2024-10-21";

    @Test
    void deploymentPathsNeedAnApiVersion() {
        var s = start(MockConfig.defaults(Flavour.AZURE_OPENAI));
        var r = post(s, "/openai/deployments/my-gpt/chat/completions", CHAT);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).path("error").path("message").asText()).contains("api-version");
    }

    @Test
    void successNamesTheDeploymentAndSendsIntegerResets() {
        // 20,000 TPM: 120 RPM, enforced as 20 per 10 s window.
        var s = start(MockConfig.builder(Flavour.AZURE_OPENAI).limits(ProviderLimits.azure(20_000)).build());
        var r = post(s, CHAT_PATH, CHAT, "api-key", "azure-key", "x-mock-output-tokens", "8");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).path("model").asText()).isEqualTo("my-gpt");
        var h = r.headers();
        assertThat(h.firstValue("x-ratelimit-limit-requests")).contains("20");
        assertThat(h.firstValue("x-ratelimit-remaining-requests")).contains("19");
        assertThat(h.firstValue("x-ratelimit-reset-requests")).contains("10");
        assertThat(h.firstValue("x-ratelimit-limit-tokens")).contains("20000");
        assertThat(h.firstValue("x-ratelimit-remaining-tokens")).contains("19888");
        // 112 tokens at 20,000 a minute refill in 0.336 s: rounded up to whole seconds.
        assertThat(h.firstValue("x-ratelimit-reset-tokens")).contains("1");
    }

    @Test
    void limited429CarriesRetryAfterMsAndAStringCode() {
        var s = start(MockConfig.builder(Flavour.AZURE_OPENAI).limits(ProviderLimits.azure(1_000)).build());
        assertThat(post(s, CHAT_PATH, CHAT).statusCode()).isEqualTo(200);
        var r = post(s, CHAT_PATH, CHAT);
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode error = json(r).path("error");
        assertThat(error.path("code").isTextual()).isTrue();
        assertThat(error.path("code").asText()).isEqualTo("429");
        assertThat(error.has("type")).isFalse();
        assertThat(error.path("message").asText())
                .startsWith("Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21")
                .contains("call rate limit").contains("Please retry after 10 seconds.");
        assertThat(r.headers().firstValue("retry-after-ms")).contains("10000");
        assertThat(r.headers().firstValue("retry-after")).contains("10");
        assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).contains("0");
    }

    @Test
    void alternateBodyIsTheShortRateLimitMessage() {
        var s = start(MockConfig.builder(Flavour.AZURE_OPENAI).limits(ProviderLimits.azure(1_000))
                .rateLimitBody(RateLimitBody.ALTERNATE).build());
        post(s, CHAT_PATH, CHAT);
        var r = post(s, CHAT_PATH, CHAT);
        assertThat(json(r).path("error").path("message").asText()).isEqualTo("Rate limit is exceeded. Try again in 10 seconds.");
    }

    @Test
    void unknownTokenHeadersAreMinusOne() {
        var s = start(MockConfig.builder(Flavour.AZURE_OPENAI).limits(ProviderLimits.azure(20_000))
                .headerMode(HeaderMode.UNKNOWN_TOKENS).build());
        var r = post(s, "/openai/responses?api-version=2025-04-01-preview", "{\"model\":\"gpt-4o\",\"input\":\"hi\"}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("x-ratelimit-limit-tokens")).contains("-1");
        assertThat(r.headers().firstValue("x-ratelimit-remaining-tokens")).contains("-1");
        assertThat(r.headers().firstValue("x-ratelimit-reset-tokens")).contains("0");
    }

    @Test
    void overloadIsAHighDemand429WithAHint() {
        var s = start(MockConfig.defaults(Flavour.AZURE_OPENAI));
        var r = post(s, CHAT_PATH, CHAT, "x-mock-fault", "overloaded");
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(json(r).path("error").path("message").asText()).contains("high demand");
        assertThat(r.headers().firstValue("retry-after-ms")).contains("1000");
    }

    @Test
    void quotaExhaustionAsksForADay() {
        var s = start(MockConfig.builder(Flavour.AZURE_OPENAI).faults(FaultConfig.builder().quotaExhausted(true).build())
                .build());
        var r = post(s, CHAT_PATH, CHAT);
        assertThat(json(r).path("error").path("message").asText()).contains("Please retry after 86400 seconds.");
        assertThat(r.headers().firstValue("retry-after-ms")).contains("86400000");
    }
}
