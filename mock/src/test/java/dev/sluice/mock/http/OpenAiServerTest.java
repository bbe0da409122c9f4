package dev.sluice.mock.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.mock.limits.ProviderLimits;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OpenAiServerTest extends MockHarness {

    private MockProviderServer openAi(ProviderLimits limits) {
        return start(MockConfig.builder(Flavour.OPENAI).limits(limits).build());
    }

    @Test
    void chatCompletionCarriesTextAndUsageWithCachedTokensInsideThePrompt() {
        var s = openAi(ProviderLimits.UNLIMITED);
        var r = post(s, "/v1/chat/completions", CHAT, "x-mock-output-tokens", "10", "x-mock-cache-read-tokens", "5");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("x-request-id")).get().asString().startsWith("req_");
        JsonNode body = json(r);
        assertThat(body.path("object").asText()).isEqualTo("chat.completion");
        assertThat(body.path("choices").get(0).path("message").path("content").asText()).hasSize(40);
        assertThat(body.path("choices").get(0).path("finish_reason").asText()).isEqualTo("stop");
        JsonNode usage = body.path("usage");
        assertThat(usage.path("prompt_tokens").asLong()).isEqualTo(CHAT_PROMPT_TOKENS);
        assertThat(usage.path("completion_tokens").asLong()).isEqualTo(10);
        assertThat(usage.path("total_tokens").asLong()).isEqualTo(CHAT_PROMPT_TOKENS + 10);
        assertThat(usage.path("prompt_tokens_details").path("cached_tokens").asLong()).isEqualTo(5);
        assertThat(usage.path("completion_tokens_details").path("reasoning_tokens").asLong()).isZero();
    }

    @Test
    void outputStopsAtMaxTokensWithFinishReasonLength() {
        var s = openAi(ProviderLimits.UNLIMITED);
        var r = post(s, "/v1/chat/completions", CHAT, "x-mock-output-tokens", "500");
        assertThat(json(r).path("usage").path("completion_tokens").asLong()).isEqualTo(100);
        assertThat(json(r).path("choices").get(0).path("finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void outputLengthIsSeededAndReproducible() {
        var a = openAi(ProviderLimits.UNLIMITED);
        var b = openAi(ProviderLimits.UNLIMITED);
        for (int i = 0; i < 3; i++) {
            long fromA = json(post(a, "/v1/chat/completions", CHAT)).path("usage").path("completion_tokens").asLong();
            long fromB = json(post(b, "/v1/chat/completions", CHAT)).path("usage").path("completion_tokens").asLong();
            assertThat(fromA).isEqualTo(fromB).isBetween(32L, 96L);
        }
    }

    @Test
    void streamWithIncludeUsageEndsWithAUsageChunkThenDone() {
        var s = openAi(ProviderLimits.UNLIMITED);
        String req = CHAT.replace("}]", "}],\"stream\":true,\"stream_options\":{\"include_usage\":true}");
        var r = post(s, "/v1/chat/completions", req, "x-mock-output-tokens", "10");
        assertThat(r.headers().firstValue("content-type")).contains("text/event-stream");
        List<String> data = sseData(r.body());
        assertThat(data.getLast()).isEqualTo("[DONE]");
        List<JsonNode> chunks = data.subList(0, data.size() - 1).stream().map(MockHarness::json).toList();
        // role chunk, 3 content chunks (4 + 4 + 2 tokens), finish chunk, usage chunk
        assertThat(chunks).hasSize(6);
        assertThat(chunks.getFirst().path("choices").get(0).path("delta").path("role").asText()).isEqualTo("assistant");
        for (JsonNode c : chunks.subList(0, 5)) {
            assertThat(c.path("object").asText()).isEqualTo("chat.completion.chunk");
            assertThat(c.has("usage")).isTrue();
            assertThat(c.path("usage").isNull()).isTrue();
        }
        assertThat(chunks.get(4).path("choices").get(0).path("finish_reason").asText()).isEqualTo("stop");
        JsonNode last = chunks.getLast();
        assertThat(last.path("choices").isEmpty()).isTrue();
        assertThat(last.path("usage").path("completion_tokens").asLong()).isEqualTo(10);
        assertThat(last.path("usage").path("total_tokens").asLong()).isEqualTo(CHAT_PROMPT_TOKENS + 10);
        String text = chunks.subList(1, 4).stream()
                .map(c -> c.path("choices").get(0).path("delta").path("content").asText()).reduce("", String::concat);
        assertThat(text).hasSize(40);
    }

    @Test
    void streamWithoutIncludeUsageHasNoUsageAtAll() {
        var s = openAi(ProviderLimits.UNLIMITED);
        var r = post(s, "/v1/chat/completions", CHAT.replace("}]", "}],\"stream\":true"), "x-mock-output-tokens", "3");
        List<String> data = sseData(r.body());
        assertThat(data.getLast()).isEqualTo("[DONE]");
        assertThat(data.subList(0, data.size() - 1)).allSatisfy(d -> assertThat(json(d).has("usage")).isFalse());
    }

    @Test
    void rateLimitHeadersOnSuccessUseGoDurations() {
        var s = openAi(ProviderLimits.openAi(600, 60_000));
        var r = post(s, "/v1/chat/completions", CHAT);
        assertThat(r.statusCode()).isEqualTo(200);
        var h = r.headers();
        assertThat(h.firstValue("x-ratelimit-limit-requests")).contains("600");
        assertThat(h.firstValue("x-ratelimit-remaining-requests")).contains("599");
        assertThat(h.firstValue("x-ratelimit-reset-requests")).contains("1m0s");
        assertThat(h.firstValue("x-ratelimit-limit-tokens")).contains("60000");
        // 12 prompt + 100 reserved = 112 tokens, refilled at 1,000 a second.
        assertThat(h.firstValue("x-ratelimit-remaining-tokens")).contains("59888");
        assertThat(h.firstValue("x-ratelimit-reset-tokens")).contains("112ms");
    }

    @Test
    void tokenLimited429NamesTheLimitAndTheWaitInTheMessage() {
        var s = openAi(ProviderLimits.builder().tpm(1_000).build());
        String req = CHAT.replace("\"max_tokens\":100", "\"max_tokens\":500");
        assertThat(post(s, "/v1/chat/completions", req, "x-mock-output-tokens", "500").statusCode()).isEqualTo(200);
        var r = post(s, "/v1/chat/completions", req);
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode error = json(r).path("error");
        // 512 used, 512 more asked of 1,000: 24 tokens short at 1,000 a minute is 1.44 s.
        assertThat(error.path("message").asText()).startsWith("Rate limit reached for gpt-4o-mini in organization ")
                .contains("on tokens per min (TPM): Limit 1000, Used 512, Requested 512. Please try again in 1.44s.");
        assertThat(error.path("type").asText()).isEqualTo("tokens");
        assertThat(error.path("code").asText()).isEqualTo("rate_limit_exceeded");
        assertThat(error.has("param")).isTrue();
        assertThat(r.headers().firstValue("retry-after")).contains("2");
        assertThat(r.headers().firstValue("retry-after-ms")).isEmpty();
        assertThat(r.headers().firstValue("x-ratelimit-remaining-tokens")).contains("488");
        assertThat(r.headers().firstValue("x-ratelimit-reset-tokens")).contains("30.72s");
    }

    @Test
    void requestLimited429HasTypeRequests() {
        var s = openAi(ProviderLimits.openAi(60, 0));
        post(s, "/v1/chat/completions", CHAT);
        var r = post(s, "/v1/chat/completions", CHAT);
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(json(r).path("error").path("type").asText()).isEqualTo("requests");
        assertThat(json(r).path("error").path("message").asText())
                .contains("on requests per min (RPM): Limit 1, Used 1, Requested 1. Please try again in 1s.");
        // Per minute, two of sixty were used (the refused one counts), though this second's one is gone.
        assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).contains("58");
    }

    @Test
    void aRequestLargerThanTheLimitIsRefusedForGoodWithoutAWaitHint() {
        var s = openAi(ProviderLimits.builder().tpm(1_000).build());
        var r = post(s, "/v1/chat/completions", CHAT.replace("\"max_tokens\":100", "\"max_tokens\":2000"));
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(json(r).path("error").path("message").asText()).startsWith("Request too large for gpt-4o-mini")
                .contains("Limit 1000, Requested 2012");
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
    }

    @Test
    void quotaExhaustionIsInsufficientQuota() {
        var s = start(MockConfig.builder(Flavour.OPENAI).faults(FaultConfig.builder().quotaExhausted(true).build()).build());
        var r = post(s, "/v1/chat/completions", CHAT);
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode error = json(r).path("error");
        assertThat(error.path("type").asText()).isEqualTo("insufficient_quota");
        assertThat(error.path("code").asText()).isEqualTo("insufficient_quota");
        assertThat(error.path("message").asText()).startsWith("You exceeded your current quota");
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
    }

    @Test
    void completionsEmbeddingsAndModels() {
        var s = openAi(ProviderLimits.UNLIMITED);
        JsonNode completion = json(post(s, "/v1/completions", "{\"model\":\"gpt-3.5-turbo-instruct\",\"prompt\":\"abcdefgh\"}",
                "x-mock-output-tokens", "50"));
        assertThat(completion.path("object").asText()).isEqualTo("text_completion");
        assertThat(completion.path("usage").path("prompt_tokens").asLong()).isEqualTo(2);
        assertThat(completion.path("usage").path("completion_tokens").asLong()).isEqualTo(16);

        JsonNode embeddings = json(post(s, "/v1/embeddings", "{\"model\":\"text-embedding-3-small\",\"input\":[\"abcd\",\"efgh\"]}"));
        assertThat(embeddings.path("data")).hasSize(2);
        assertThat(embeddings.path("data").get(1).path("embedding")).hasSize(8);
        assertThat(embeddings.path("usage").path("prompt_tokens").asLong()).isEqualTo(2);

        JsonNode models = json(get(s, "/v1/models"));
        assertThat(models.path("data").get(0).path("id").asText()).isEqualTo("gpt-4o-mini");
    }

    @Test
    void responsesApiUsageAndStream() {
        var s = openAi(ProviderLimits.UNLIMITED);
        String req = "{\"model\":\"gpt-4o\",\"input\":\"abcdefgh\",\"max_output_tokens\":20}";
        JsonNode body = json(post(s, "/v1/responses", req, "x-mock-output-tokens", "6", "x-mock-cache-read-tokens", "2"));
        assertThat(body.path("object").asText()).isEqualTo("response");
        assertThat(body.path("status").asText()).isEqualTo("completed");
        assertThat(body.path("usage").path("input_tokens").asLong()).isEqualTo(9);
        assertThat(body.path("usage").path("input_tokens_details").path("cached_tokens").asLong()).isEqualTo(2);
        assertThat(body.path("usage").path("output_tokens").asLong()).isEqualTo(6);
        assertThat(body.path("usage").path("total_tokens").asLong()).isEqualTo(15);

        var r = post(s, "/v1/responses", req.replace("}", ",\"stream\":true}"), "x-mock-output-tokens", "6");
        assertThat(sseEvents(r.body())).containsExactly("response.created", "response.in_progress",
                "response.output_text.delta", "response.output_text.delta", "response.output_text.done",
                "response.completed");
        assertThat(json(sseData(r.body()).getLast()).path("response").path("usage").path("output_tokens").asLong())
                .isEqualTo(6);
    }

    @Test
    void requiredKeysRejectOthersWith401() {
        var s = start(MockConfig.builder(Flavour.OPENAI).requiredKeys(Set.of("sk-good")).build());
        assertThat(post(s, "/v1/chat/completions", CHAT, "authorization", "Bearer sk-bad").statusCode()).isEqualTo(401);
        HttpResponse<String> ok = post(s, "/v1/chat/completions", CHAT, "authorization", "Bearer sk-good");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(s.stats().attempts()).extracting(Attempt::tenant).allMatch(t -> t.startsWith("key-"))
                .noneMatch(t -> t.contains("sk-"));
    }

    @Test
    void unknownPathsAndBadBodiesGetOpenAiErrors() {
        var s = openAi(ProviderLimits.UNLIMITED);
        var notFound = post(s, "/v1/nothing", "{}");
        assertThat(notFound.statusCode()).isEqualTo(404);
        assertThat(json(notFound).path("error").path("type").asText()).isEqualTo("invalid_request_error");
        var bad = post(s, "/v1/chat/completions", "{not json");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(post(s, "/v1/chat/completions", CHAT, "x-mock-status", "409").statusCode()).isEqualTo(409);
    }
}
