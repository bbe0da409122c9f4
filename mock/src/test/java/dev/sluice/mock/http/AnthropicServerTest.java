package dev.sluice.mock.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.mock.limits.ProviderLimits;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnthropicServerTest extends MockHarness {

    /** "Hello there, mock!" as one user message: 5 + 4 + 3 tokens. */
    private static final String MESSAGES = "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":1024,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello there, mock!\"}]}";

    private MockProviderServer anthropic(ProviderLimits limits) {
        return start(MockConfig.builder(Flavour.ANTHROPIC).limits(limits).build());
    }

    @Test
    void messageUsageCountsCacheReadsApartFromInputTokens() {
        var s = anthropic(ProviderLimits.UNLIMITED);
        var r = post(s, "/v1/messages", MESSAGES, "x-api-key", "sk-ant", "x-mock-output-tokens", "7",
                "x-mock-cache-read-tokens", "4");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("request-id")).get().asString().startsWith("req_");
        JsonNode body = json(r);
        assertThat(body.path("type").asText()).isEqualTo("message");
        assertThat(body.path("content").get(0).path("text").asText()).hasSize(28);
        assertThat(body.path("stop_reason").asText()).isEqualTo("end_turn");
        JsonNode usage = body.path("usage");
        assertThat(usage.path("input_tokens").asLong()).isEqualTo(8);
        assertThat(usage.path("cache_read_input_tokens").asLong()).isEqualTo(4);
        assertThat(usage.path("cache_creation_input_tokens").asLong()).isZero();
        assertThat(usage.path("output_tokens").asLong()).isEqualTo(7);
    }

    @Test
    void headersReportEachLimitWithThousandRoundingAndRfc3339Resets() {
        var s = anthropic(ProviderLimits.anthropic(50, 30_000, 8_000));
        var r = post(s, "/v1/messages", MESSAGES, "x-mock-output-tokens", "10");
        var h = r.headers();
        assertThat(h.firstValue("anthropic-ratelimit-requests-limit")).contains("50");
        assertThat(h.firstValue("anthropic-ratelimit-requests-remaining")).contains("49");
        assertThat(h.firstValue("anthropic-ratelimit-requests-reset")).contains("2026-01-01T00:01:00Z");
        assertThat(h.firstValue("anthropic-ratelimit-input-tokens-limit")).contains("30000");
        // 29,988 left rounds to 30,000; the 12 tokens refill within a second.
        assertThat(h.firstValue("anthropic-ratelimit-input-tokens-remaining")).contains("30000");
        assertThat(h.firstValue("anthropic-ratelimit-input-tokens-reset")).contains("2026-01-01T00:00:01Z");
        assertThat(h.firstValue("anthropic-ratelimit-output-tokens-limit")).contains("8000");
        assertThat(h.firstValue("anthropic-ratelimit-tokens-limit")).contains("38000");
    }

    @Test
    void cacheReadsDoNotCountAgainstInputTokensPerMinute() {
        var s = anthropic(ProviderLimits.anthropic(0, 20, 0));
        // 12 prompt tokens of which 10 cached: only 2 are charged, so ten requests fit in 20 tokens.
        for (int i = 0; i < 10; i++) {
            assertThat(post(s, "/v1/messages", MESSAGES, "x-mock-cache-read-tokens", "10").statusCode()).isEqualTo(200);
        }
        assertThat(post(s, "/v1/messages", MESSAGES, "x-mock-cache-read-tokens", "10").statusCode()).isEqualTo(429);
    }

    @Test
    void streamSplitsUsageBetweenMessageStartAndCumulativeMessageDelta() {
        var s = anthropic(ProviderLimits.UNLIMITED);
        var r = post(s, "/v1/messages", MESSAGES.replace("{\"model\"", "{\"stream\":true,\"model\""),
                "x-mock-output-tokens", "9");
        assertThat(sseEvents(r.body())).containsExactly("message_start", "content_block_start", "ping",
                "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
                "message_delta", "message_stop");
        List<JsonNode> data = sseData(r.body()).stream().map(MockHarness::json).toList();
        JsonNode start = data.getFirst().path("message").path("usage");
        assertThat(start.path("input_tokens").asLong()).isEqualTo(12);
        assertThat(start.path("output_tokens").asLong()).isEqualTo(1);
        JsonNode delta = data.get(7);
        assertThat(delta.path("usage").path("output_tokens").asLong()).isEqualTo(9);
        assertThat(delta.path("delta").path("stop_reason").asText()).isEqualTo("end_turn");
    }

    @Test
    void anErrorEventCanArriveMidStream() {
        var s = anthropic(ProviderLimits.UNLIMITED);
        var r = post(s, "/v1/messages", MESSAGES.replace("{\"model\"", "{\"stream\":true,\"model\""),
                "x-mock-output-tokens", "16", "x-mock-fault", "stream_error");
        assertThat(r.statusCode()).isEqualTo(200);
        List<String> events = sseEvents(r.body());
        assertThat(events.getLast()).isEqualTo("error");
        assertThat(events).doesNotContain("message_stop").contains("content_block_delta");
        assertThat(json(sseData(r.body()).getLast()).path("error").path("type").asText()).isEqualTo("overloaded_error");
    }

    @Test
    void rateLimited429HasRetryAfterAndRequestIdInBodyAndHeader() {
        var s = anthropic(ProviderLimits.anthropic(1, 0, 0));
        post(s, "/v1/messages", MESSAGES);
        var r = post(s, "/v1/messages", MESSAGES);
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode body = json(r);
        assertThat(body.path("type").asText()).isEqualTo("error");
        assertThat(body.path("error").path("type").asText()).isEqualTo("rate_limit_error");
        assertThat(body.path("error").path("message").asText())
                .startsWith("This request would exceed the rate limit for your organization of 1 requests per minute.");
        assertThat(body.path("request_id").asText()).isEqualTo(r.headers().firstValue("request-id").orElseThrow());
        assertThat(r.headers().firstValue("retry-after")).contains("60");
    }

    @Test
    void spendCap429HasNoRetryAfterAndAnErrorCode() {
        var s = start(MockConfig.builder(Flavour.ANTHROPIC).faults(FaultConfig.builder().quotaExhausted(true).build()).build());
        var r = post(s, "/v1/messages", MESSAGES);
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(json(r).path("error").path("type").asText()).isEqualTo("rate_limit_error");
        assertThat(json(r).path("error").path("details").path("error_code").asText())
                .isEqualTo("enforced_spend_limit_reached");
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
    }

    @Test
    void overloadIs529() {
        var s = anthropic(ProviderLimits.UNLIMITED);
        var r = post(s, "/v1/messages", MESSAGES, "x-mock-fault", "overloaded");
        assertThat(r.statusCode()).isEqualTo(529);
        assertThat(json(r).path("error").path("type").asText()).isEqualTo("overloaded_error");
        assertThat(json(r).path("error").path("message").asText()).isEqualTo("Overloaded");
    }

    @Test
    void maxTokensIsRequiredAndCountTokensAnswersTheCount() {
        var s = anthropic(ProviderLimits.UNLIMITED);
        var bad = post(s, "/v1/messages", MESSAGES.replace("\"max_tokens\":1024,", ""));
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(json(bad).path("error").path("type").asText()).isEqualTo("invalid_request_error");
        var count = post(s, "/v1/messages/count_tokens", MESSAGES.replace("\"max_tokens\":1024,", ""));
        assertThat(json(count).path("input_tokens").asLong()).isEqualTo(12);
    }
}
