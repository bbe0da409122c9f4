package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Real HTTP through the gateway to mock providers: each route family, plain and streaming. */
class EndToEndTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();
    static final ObjectMapper JSON = new ObjectMapper();

    static final String CHAT = """
            {"model":"%s","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello there"}],
             "max_tokens":50%s}""";

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    @Test
    void openAiChatPassesThroughWithUsageAndCallerHeaders() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, CHAT.formatted("chat", ""));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode body = json(r);
        assertThat(body.path("choices").get(0).path("message").path("content").asText()).isNotEmpty();
        assertThat(body.path("usage").path("prompt_tokens").asLong()).isPositive();
        assertThat(r.headers().firstValue("x-sluice-trace-id").orElseThrow()).hasSize(32);
        assertThat(r.headers().firstValue("x-ratelimit-limit-requests")).contains("100000");
        assertThat(r.headers().firstValue("RateLimit-Policy").orElseThrow()).contains("\"key-rpm\";q=100000;w=60");
        assertThat(r.headers().firstValue("RateLimit").orElseThrow()).contains("\"key-rpm\";r=");
    }

    @Test
    void traceparentIsHonoured() throws Exception {
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, CHAT.formatted("chat", ""),
                "traceparent", "00-" + trace + "-00f067aa0ba902b7-01");
        assertThat(r.headers().firstValue("x-sluice-trace-id")).contains(trace);
    }

    @Test
    void openAiStreamHidesTheUsageChunkTheClientDidNotAskFor() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, CHAT.formatted("chat", ",\"stream\":true"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElseThrow()).startsWith("text/event-stream");
        assertThat(r.body()).contains("chat.completion.chunk").endsWith("data: [DONE]\n\n");
        assertThat(r.body()).doesNotContain("\"prompt_tokens\"");
    }

    @Test
    void openAiStreamKeepsTheUsageChunkTheClientAskedFor() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY,
                CHAT.formatted("chat", ",\"stream\":true,\"stream_options\":{\"include_usage\":true}"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"prompt_tokens\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void azureDeploymentIsReachedThroughTheOpenAiRoute() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, CHAT.formatted("azure-chat", ""));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).path("usage").path("completion_tokens").asLong()).isPositive();
        HttpResponse<String> s = f.post("/v1/chat/completions", GatewayFixture.KEY,
                CHAT.formatted("azure-chat", ",\"stream\":true"));
        assertThat(s.statusCode()).isEqualTo(200);
        assertThat(s.body()).contains("chat.completion.chunk").doesNotContain("\"prompt_tokens\"")
                .endsWith("data: [DONE]\n\n");
    }

    @Test
    void completionsStreamAlsoHidesTheUsageChunk() throws Exception {
        HttpResponse<String> r = f.post("/v1/completions", GatewayFixture.KEY,
                "{\"model\":\"chat\",\"prompt\":\"Say hi\",\"max_tokens\":5,\"stream\":true}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).doesNotContain("\"prompt_tokens\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void completionsEmbeddingsAndResponsesPassThrough() throws Exception {
        assertThat(f.post("/v1/completions", GatewayFixture.KEY, "{\"model\":\"chat\",\"prompt\":\"Say hi\",\"max_tokens\":5}")
                .statusCode()).isEqualTo(200);
        HttpResponse<String> e = f.post("/v1/embeddings", GatewayFixture.KEY, "{\"model\":\"chat\",\"input\":[\"a\",\"b\"]}");
        assertThat(e.statusCode()).as(e.body()).isEqualTo(200);
        HttpResponse<String> resp = f.post("/v1/responses", GatewayFixture.KEY,
                "{\"model\":\"chat\",\"input\":\"Say hi\",\"max_output_tokens\":20}");
        assertThat(resp.statusCode()).as(resp.body()).isEqualTo(200);
        assertThat(json(resp).path("usage").path("output_tokens").asLong()).isPositive();
    }

    @Test
    void responsesStreamPassesThrough() throws Exception {
        HttpResponse<String> r = f.post("/v1/responses", GatewayFixture.KEY,
                "{\"model\":\"chat\",\"input\":\"Say hi\",\"stream\":true}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("response.completed");
    }

    static final String MESSAGES = """
            {"model":"claude","max_tokens":64,"system":"Be brief.","messages":[{"role":"user","content":"Hello"}]%s}""";

    @Test
    void anthropicMessagesPlainAndStreaming() throws Exception {
        HttpResponse<String> plain = f.post("/v1/messages", null, MESSAGES.formatted(""), "x-api-key", GatewayFixture.KEY,
                "anthropic-version", "2023-06-01");
        assertThat(plain.statusCode()).as(plain.body()).isEqualTo(200);
        assertThat(json(plain).path("usage").path("output_tokens").asLong()).isPositive();
        HttpResponse<String> stream = f.post("/v1/messages", null, MESSAGES.formatted(",\"stream\":true"), "x-api-key",
                GatewayFixture.KEY);
        assertThat(stream.statusCode()).isEqualTo(200);
        assertThat(stream.body()).contains("event: message_start").contains("event: message_stop");
    }

    @Test
    void anthropicCountTokensIsAnsweredLocally() throws Exception {
        HttpResponse<String> r = f.post("/v1/messages/count_tokens", null, MESSAGES.formatted(""), "x-api-key",
                GatewayFixture.KEY);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).path("input_tokens").asLong()).isPositive();
    }

    static final String GEMINI = """
            {"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"role":"user","parts":[{"text":"Hello"}]}],
             "generationConfig":{"maxOutputTokens":40}}""";

    @Test
    void geminiGeneratePlainAndStreaming() throws Exception {
        HttpResponse<String> plain = f.post("/v1beta/models/gemini:generateContent", null, GEMINI, "x-goog-api-key",
                GatewayFixture.KEY);
        assertThat(plain.statusCode()).as(plain.body()).isEqualTo(200);
        assertThat(json(plain).path("usageMetadata").path("candidatesTokenCount").asLong()).isPositive();
        HttpResponse<String> stream = f.post("/v1beta/models/gemini:streamGenerateContent?alt=sse&key=" + GatewayFixture.KEY,
                null, GEMINI);
        assertThat(stream.statusCode()).as(stream.body()).isEqualTo(200);
        assertThat(stream.body()).startsWith("data: ").contains("usageMetadata");
        // The answer is written before its reservation is settled: wait for the settlement.
        f.awaitBalanced();
        long settled = f.gateway.counters().reservationsSettled();
        HttpResponse<String> array = f.post("/v1beta/models/gemini:streamGenerateContent", null, GEMINI,
                "x-goog-api-key", GatewayFixture.KEY);
        assertThat(array.statusCode()).as(array.body()).isEqualTo(200);
        assertThat(array.body()).startsWith("[").contains("usageMetadata");
        f.awaitBalanced();
        assertThat(f.gateway.counters().reservationsSettled()).isEqualTo(settled + 1);
        HttpResponse<String> count = f.post("/v1beta/models/gemini:countTokens", null, GEMINI, "x-goog-api-key",
                GatewayFixture.KEY);
        assertThat(json(count).path("totalTokens").asLong()).isPositive();
    }

    @Test
    void chatRouteTranslatesToAnthropicAndGemini() throws Exception {
        for (String profile : new String[] {"claude", "gemini"}) {
            HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, CHAT.formatted(profile, ""));
            assertThat(r.statusCode()).as(profile + ": " + r.body()).isEqualTo(200);
            JsonNode body = json(r);
            assertThat(body.path("object").asText()).isEqualTo("chat.completion");
            // The model rule: the provider's model in the body, the profile in a header.
            assertThat(body.path("model").asText()).isEqualTo(profile.equals("claude") ? "claude-sonnet-4" : "gemini-2.5-flash");
            assertThat(r.headers().firstValue("x-sluice-model-profile")).contains(profile);
            assertThat(body.path("usage").path("completion_tokens").asLong()).isPositive();
            HttpResponse<String> s = f.post("/v1/chat/completions", GatewayFixture.KEY,
                    CHAT.formatted(profile, ",\"stream\":true,\"stream_options\":{\"include_usage\":true}"));
            assertThat(s.statusCode()).isEqualTo(200);
            assertThat(s.body()).contains("chat.completion.chunk").contains("\"completion_tokens\"")
                    .endsWith("data: [DONE]\n\n");
        }
    }

    @Test
    void modelsListsTheKeysProfilesAndHealthNeedsNoKey() throws Exception {
        HttpResponse<String> m = f.get("/v1/models", GatewayFixture.KEY);
        assertThat(m.statusCode()).isEqualTo(200);
        assertThat(json(m).path("data").findValuesAsText("id")).contains("chat", "claude", "gemini");
        assertThat(f.get("/healthz", null).statusCode()).isEqualTo(200);
        assertThat(f.get("/readyz", null).statusCode()).isEqualTo(200);
    }

    @Test
    void aFiftyKilobytePromptIsQuotedOffTheEventLoopAndAnswered() throws Exception {
        // Above the inline limit, so it is counted on a worker; the answer and the ledger are as usual.
        String prompt = "the quick brown fox jumps over the lazy dog ".repeat(50_000 / 44 + 1);
        String body = """
                {"model":"chat","messages":[{"role":"user","content":"%s"}],"max_tokens":20}""".formatted(prompt);
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).path("usage").path("prompt_tokens").asLong()).isGreaterThan(9_000);
        HttpResponse<String> s = f.post("/v1/chat/completions", GatewayFixture.KEY,
                body.replace("\"max_tokens\":20", "\"max_tokens\":20,\"stream\":true"));
        assertThat(s.statusCode()).as(s.body()).isEqualTo(200);
        assertThat(s.body()).endsWith("data: [DONE]\n\n");
    }

    /**
     * Events that arrive from the provider in one read leave for the client in one write: one
     * HTTP chunk, not one per event (each of which would be its own system call and TCP segment).
     */
    @Test
    void eventsOfOneUpstreamReadReachTheClientAsOneChunk() throws Exception {
        List<String> chunks = new ArrayList<>();
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            OutputStream out = s.getOutputStream();
            out.write(ErrorsTest.rawRequest(ErrorsTest.chat("fake-batched-stream", ",\"stream\":true"))
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            readLine(in); // status line
            while (!readLine(in).isEmpty()) {
                // headers
            }
            for (int size; (size = Integer.parseInt(readLine(in), 16)) > 0; ) {
                chunks.add(new String(in.readNBytes(size), StandardCharsets.UTF_8));
                readLine(in);
            }
        }
        f.awaitBalanced();

        // Five upstream chunks; the usage chunk the client did not ask for is withheld.
        String body = String.join("", chunks);
        assertThat(body).isEqualTo(FakeUpstream.BATCHED_EVENTS.get(0) + FakeUpstream.BATCHED_EVENTS.get(1)
                + FakeUpstream.BATCHED_EVENTS.get(2) + FakeUpstream.BATCHED_EVENTS.get(4));
        // One upstream read gives one chunk; allow a second in case the kernel split the upstream's write.
        assertThat(chunks).hasSizeLessThanOrEqualTo(2);
    }

    private static String readLine(InputStream in) throws Exception {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != -1; ) {
            if (b == '\n') {
                break;
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}
