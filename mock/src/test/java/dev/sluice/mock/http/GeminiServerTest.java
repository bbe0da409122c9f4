package dev.sluice.mock.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.mock.limits.ProviderLimits;
import java.util.List;
import org.junit.jupiter.api.Test;

class GeminiServerTest extends MockHarness {

    /** "Hello there, mock!" as one content: 5 + 4 + 3 tokens. */
    private static final String GENERATE = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Hello there, mock!\"}]}],"
            + "\"generationConfig\":{\"maxOutputTokens\":50}}";
    private static final String MODEL = "/v1beta/models/gemini-2.5-flash";

    private MockProviderServer gemini(ProviderLimits limits) {
        return start(MockConfig.builder(Flavour.GEMINI).limits(limits).build());
    }

    @Test
    void usageMetadataCountsCachedTokensInsideThePrompt() {
        var s = gemini(ProviderLimits.gemini(10, 100_000, 1_000));
        var r = post(s, MODEL + ":generateContent", GENERATE, "x-goog-api-key", "AIza-test", "x-mock-output-tokens", "5",
                "x-mock-cache-read-tokens", "3");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode body = json(r);
        JsonNode candidate = body.path("candidates").get(0);
        assertThat(candidate.path("content").path("parts").get(0).path("text").asText()).hasSize(20);
        assertThat(candidate.path("finishReason").asText()).isEqualTo("STOP");
        JsonNode usage = body.path("usageMetadata");
        assertThat(usage.path("promptTokenCount").asLong()).isEqualTo(12);
        assertThat(usage.path("cachedContentTokenCount").asLong()).isEqualTo(3);
        assertThat(usage.path("candidatesTokenCount").asLong()).isEqualTo(5);
        assertThat(usage.path("totalTokenCount").asLong()).isEqualTo(17);
        assertThat(r.headers().map().keySet()).noneMatch(k -> k.contains("ratelimit")).doesNotContain("retry-after");
    }

    @Test
    void sseStreamCarriesRunningUsageAndFinishesOnTheLastChunk() {
        var s = gemini(ProviderLimits.UNLIMITED);
        var r = post(s, MODEL + ":streamGenerateContent?alt=sse", GENERATE, "x-mock-output-tokens", "10");
        assertThat(r.headers().firstValue("content-type")).contains("text/event-stream");
        assertThat(r.body()).contains("\r\n\r\n");
        List<JsonNode> chunks = sseData(r.body()).stream().map(MockHarness::json).toList();
        assertThat(chunks).hasSize(3);
        assertThat(chunks).extracting(c -> c.path("usageMetadata").path("candidatesTokenCount").asLong())
                .containsExactly(4L, 8L, 10L);
        assertThat(chunks.getLast().path("candidates").get(0).path("finishReason").asText()).isEqualTo("STOP");
        assertThat(chunks.getFirst().path("candidates").get(0).has("finishReason")).isFalse();
    }

    @Test
    void streamWithoutAltSseIsOneJsonArray() {
        var s = gemini(ProviderLimits.UNLIMITED);
        var r = post(s, MODEL + ":streamGenerateContent", GENERATE, "x-mock-output-tokens", "10");
        JsonNode array = json(r);
        assertThat(array.isArray()).isTrue();
        assertThat(array).hasSize(3);
        assertThat(array.get(2).path("usageMetadata").path("totalTokenCount").asLong()).isEqualTo(22);
    }

    @Test
    void rateLimited429IsResourceExhaustedWithQuotaFailureHelpAndRetryInfoButNoHeaders() {
        var s = gemini(ProviderLimits.gemini(1, 0, 0));
        post(s, MODEL + ":generateContent", GENERATE);
        var r = post(s, MODEL + ":generateContent", GENERATE);
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().map().keySet()).noneMatch(k -> k.contains("ratelimit")).doesNotContain("retry-after",
                "retry-after-ms");
        JsonNode error = json(r).path("error");
        assertThat(error.path("code").asInt()).isEqualTo(429);
        assertThat(error.path("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(error.path("message").asText()).startsWith("You exceeded your current quota")
                .endsWith("Please retry in 60s.");
        JsonNode details = error.path("details");
        assertThat(details).extracting(d -> d.path("@type").asText()).containsExactly(
                "type.googleapis.com/google.rpc.QuotaFailure", "type.googleapis.com/google.rpc.Help",
                "type.googleapis.com/google.rpc.RetryInfo");
        JsonNode violation = details.get(0).path("violations").get(0);
        assertThat(violation.path("quotaId").asText()).isEqualTo("GenerateRequestsPerMinutePerProjectPerModel");
        assertThat(violation.path("quotaValue").asText()).isEqualTo("1");
        assertThat(violation.path("quotaDimensions").path("model").asText()).isEqualTo("gemini-2.5-flash");
        assertThat(details.get(2).path("retryDelay").asText()).isEqualTo("60s");
    }

    @Test
    void dailyLimitResetsAtPacificMidnight() {
        // The clock starts at 2026-01-01T00:00Z, which is 16:00 the day before in Los Angeles.
        var s = gemini(ProviderLimits.gemini(0, 0, 1));
        post(s, MODEL + ":generateContent", GENERATE);
        var r = post(s, MODEL + ":generateContent", GENERATE);
        JsonNode details = json(r).path("error").path("details");
        assertThat(details.get(0).path("violations").get(0).path("quotaId").asText())
                .isEqualTo("GenerateRequestsPerDayPerProjectPerModel");
        assertThat(details.get(2).path("retryDelay").asText()).isEqualTo("28800s");
    }

    @Test
    void vertexVariantHasNoRetryInfo() {
        var s = start(MockConfig.builder(Flavour.GEMINI).limits(ProviderLimits.gemini(1, 0, 0))
                .rateLimitBody(RateLimitBody.ALTERNATE).build());
        post(s, MODEL + ":generateContent", GENERATE);
        JsonNode error = json(post(s, MODEL + ":generateContent", GENERATE)).path("error");
        assertThat(error.path("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(error.path("message").asText()).isEqualTo("Resource exhausted, please try again later.");
        assertThat(error.has("details")).isFalse();
    }

    @Test
    void openAiCompatibleEndpointAnswersChatAndArrayWrapped429s() {
        var s = gemini(ProviderLimits.gemini(1, 0, 0));
        var ok = post(s, "/v1beta/openai/chat/completions", CHAT.replace("gpt-4o-mini", "gemini-2.5-flash"));
        assertThat(json(ok).path("object").asText()).isEqualTo("chat.completion");
        var limited = post(s, "/v1beta/openai/chat/completions", CHAT);
        assertThat(limited.statusCode()).isEqualTo(429);
        JsonNode body = json(limited);
        assertThat(body.isArray()).isTrue();
        assertThat(body.get(0).path("error").path("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
    }

    @Test
    void countTokensAndModels() {
        var s = gemini(ProviderLimits.UNLIMITED);
        assertThat(json(post(s, MODEL + ":countTokens", GENERATE)).path("totalTokens").asLong()).isEqualTo(12);
        assertThat(json(get(s, "/v1beta/models")).path("models").get(0).path("name").asText())
                .isEqualTo("models/gemini-2.5-flash");
    }

    @Test
    void overloadIs503Unavailable() {
        var s = gemini(ProviderLimits.UNLIMITED);
        var r = post(s, MODEL + ":generateContent", GENERATE, "x-mock-fault", "overloaded");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(json(r).path("error").path("status").asText()).isEqualTo("UNAVAILABLE");
    }
}
