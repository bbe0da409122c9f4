package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The official OpenAI and Anthropic Java SDKs, pointed at Sluice by base URL and key only. */
class SdkEndToEndTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    static OpenAIClient openAi(String key) {
        return OpenAIOkHttpClient.builder().baseUrl(f.base() + "/v1").apiKey(key).maxRetries(0).build();
    }

    static AnthropicClient anthropic(String key) {
        return AnthropicOkHttpClient.builder().baseUrl(f.base()).apiKey(key).maxRetries(0).build();
    }

    static ChatCompletionCreateParams chat(String model) {
        return ChatCompletionCreateParams.builder().model(model).addUserMessage("Hello").maxCompletionTokens(20).build();
    }

    static MessageCreateParams message() {
        return MessageCreateParams.builder().model("claude").maxTokens(64).addUserMessage("Hello").build();
    }

    /** Spends the tight key's one request per minute, so the next call is refused locally. */
    static void spendTightKey() throws Exception {
        f.post("/v1/chat/completions", GatewayFixture.KEY_TIGHT,
                "{\"model\":\"chat\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":5}");
    }

    @Test
    void openAiSdkPlainAndStreaming() {
        OpenAIClient client = openAi(GatewayFixture.KEY);
        for (String model : List.of("chat", "claude", "gemini")) {
            ChatCompletion c = client.chat().completions().create(chat(model));
            assertThat(c.choices().get(0).message().content()).as(model).isPresent();
            assertThat(c.usage().orElseThrow().completionTokens()).as(model).isPositive();
            try (var stream = client.chat().completions().createStreaming(chat(model))) {
                List<ChatCompletionChunk> chunks = stream.stream().toList();
                assertThat(chunks).as(model).isNotEmpty();
                String text = chunks.stream().flatMap(ch -> ch.choices().stream())
                        .flatMap(ch -> ch.delta().content().stream()).reduce("", String::concat);
                assertThat(text).as(model).isNotEmpty();
            }
        }
    }

    @Test
    void openAiSdkResponsesReachEveryProfile() {
        OpenAIClient client = openAi(GatewayFixture.KEY);
        for (String model : List.of("chat", "claude", "gemini")) {
            com.openai.models.responses.Response r = client.responses().create(com.openai.models.responses.ResponseCreateParams
                    .builder().model(model).input("Hello").maxOutputTokens(20).build());
            String text = r.output().stream().flatMap(o -> o.message().stream()).flatMap(m -> m.content().stream())
                    .flatMap(c -> c.outputText().stream()).map(t -> t.text()).reduce("", String::concat);
            assertThat(text).as(model).isNotEmpty();
            assertThat(r.usage().orElseThrow().outputTokens()).as(model).isPositive();
        }
    }

    @Test
    void openAiSdkSeesALocalRejectionAsARateLimitWithTheRetryDelay() throws Exception {
        spendTightKey();
        com.openai.errors.RateLimitException e = catchThrowableOfType(com.openai.errors.RateLimitException.class,
                () -> openAi(GatewayFixture.KEY_TIGHT).chat().completions().create(chat("chat")));
        assertThat(e).isNotNull();
        assertThat(e.statusCode()).isEqualTo(429);
        long ms = Long.parseLong(e.headers().values("retry-after-ms").get(0));
        assertThat(ms).isBetween(1L, 60_000L);
        assertThat(Long.parseLong(e.headers().values("retry-after").get(0))).isEqualTo((ms + 999) / 1000);
        assertThat(e.getMessage()).contains("key:tight");
    }

    @Test
    void anthropicSdkPlainAndStreaming() {
        AnthropicClient client = anthropic(GatewayFixture.KEY);
        Message m = client.messages().create(message());
        assertThat(m.content()).isNotEmpty();
        assertThat(m.usage().outputTokens()).isPositive();
        try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(message())) {
            List<RawMessageStreamEvent> events = stream.stream().toList();
            assertThat(events).anyMatch(RawMessageStreamEvent::isMessageStop);
        }
    }

    @Test
    void anthropicSdkSeesALocalRejectionAsARateLimitWithTheRetryDelay() throws Exception {
        spendTightKey();
        com.anthropic.errors.RateLimitException e = catchThrowableOfType(com.anthropic.errors.RateLimitException.class,
                () -> anthropic(GatewayFixture.KEY_TIGHT).messages().create(message()));
        assertThat(e).isNotNull();
        assertThat(e.statusCode()).isEqualTo(429);
        long ms = Long.parseLong(e.headers().values("retry-after-ms").get(0));
        assertThat(ms).isBetween(1L, 60_000L);
        assertThat(e.getMessage()).contains("rate_limit_error");
    }
}
