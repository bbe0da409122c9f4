package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the client libraries' first calls meet: errors in the dialect the request speaks, base URLs
 * with or without {@code /v1}, Gemini's v1 and catalogue routes, embeddings, the Anthropic catalogue,
 * the model rule, and Responses refusing what Sluice cannot keep.
 */
class ClientDialectTest {

    static final ObjectMapper JSON = new ObjectMapper();
    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    static HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(f.base() + path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("content-type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return f.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    static final String MESSAGE = "{\"model\":\"claude\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    static final String GENERATE = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Hi\"}]}]}";

    @Test
    void anUnknownRouteAnswersInTheShapeItsHeadersName() throws Exception {
        JsonNode anthropic = json(send("POST", "/v1/nothing", "{}", "x-api-key", GatewayFixture.KEY));
        assertThat(anthropic.path("type").asText()).isEqualTo("error");
        assertThat(anthropic.path("error").path("type").asText()).isEqualTo("not_found_error");
        JsonNode versioned = json(send("POST", "/nothing", "{}", "anthropic-version", "2023-06-01"));
        assertThat(versioned.path("error").path("type").asText()).isEqualTo("not_found_error");
        JsonNode google = json(send("POST", "/v2/nothing", "{}", "x-goog-api-key", GatewayFixture.KEY));
        assertThat(google.path("error").path("status").asText()).isEqualTo("NOT_FOUND");
        assertThat(google.path("error").path("code").asInt()).isEqualTo(404);
        JsonNode query = json(send("GET", "/v2/nothing?key=" + GatewayFixture.KEY, null));
        assertThat(query.path("error").path("status").asText()).isEqualTo("NOT_FOUND");
        JsonNode openAi = json(send("POST", "/v2/nothing", "{}", "authorization", "Bearer x"));
        assertThat(openAi.path("error").path("code").asText()).isEqualTo("unknown_route");
        assertThat(openAi.path("error").path("type").asText()).isEqualTo("not_found_error");
    }

    @Test
    void anAuthenticationFailureOnASharedPathAnswersInItsCallersShape() throws Exception {
        HttpResponse<String> a = send("GET", "/v1/models", null, "x-api-key", "wrong", "anthropic-version", "2023-06-01");
        assertThat(a.statusCode()).isEqualTo(401);
        assertThat(json(a).path("error").path("type").asText()).isEqualTo("authentication_error");
        HttpResponse<String> g = send("GET", "/v1/models", null, "x-goog-api-key", "wrong");
        assertThat(g.statusCode()).isEqualTo(401);
        assertThat(json(g).path("error").path("status").asText()).isEqualTo("UNAUTHENTICATED");
    }

    @Test
    void theAnthropicBaseUrlMayCarryV1OrNot() throws Exception {
        for (String path : new String[] {"/v1/messages", "/messages", "/v1/v1/messages"}) {
            HttpResponse<String> r = send("POST", path, MESSAGE, "x-api-key", GatewayFixture.KEY);
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
            assertThat(json(r).path("type").asText()).isEqualTo("message");
        }
    }

    @Test
    void geminiIsServedOnV1AsOnV1beta() throws Exception {
        for (String version : new String[] {"v1", "v1beta"}) {
            HttpResponse<String> r = send("POST", "/" + version + "/models/gemini:generateContent", GENERATE,
                    "x-goog-api-key", GatewayFixture.KEY);
            assertThat(r.statusCode()).as(version + ": " + r.body()).isEqualTo(200);
            assertThat(json(r).path("candidates").path(0).path("content").path("parts").path(0).path("text").asText())
                    .isNotEmpty();
        }
    }

    @Test
    void eachFamilyListsAndDescribesTheKeysProfilesInItsShape() throws Exception {
        JsonNode openAi = json(send("GET", "/v1/models", null, "authorization", "Bearer " + GatewayFixture.KEY));
        assertThat(openAi.path("data").findValuesAsText("id")).contains("chat", "claude", "gemini");
        assertThat(json(send("GET", "/v1/models/claude", null, "authorization", "Bearer " + GatewayFixture.KEY))
                .path("object").asText()).isEqualTo("model");

        JsonNode anthropic = json(send("GET", "/v1/models", null, "x-api-key", GatewayFixture.KEY,
                "anthropic-version", "2023-06-01"));
        // The fixture's misbehaving fakes of that family are listed too; the real profiles are these.
        assertThat(anthropic.path("data").findValuesAsText("id")).filteredOn(id -> !id.startsWith("fake-"))
                .containsExactly("claude");
        assertThat(anthropic.path("has_more").asBoolean(true)).isFalse();
        assertThat(anthropic.path("data").path(0).path("type").asText()).isEqualTo("model");

        for (String version : new String[] {"v1", "v1beta"}) {
            JsonNode gemini = json(send("GET", "/" + version + "/models", null, "x-goog-api-key", GatewayFixture.KEY));
            assertThat(gemini.path("models").findValuesAsText("name")).filteredOn(n -> !n.startsWith("models/fake-"))
                    .containsExactly("models/gemini", "models/gemini-embed");
            JsonNode one = json(send("GET", "/" + version + "/models/gemini", null, "x-goog-api-key", GatewayFixture.KEY));
            assertThat(one.path("name").asText()).isEqualTo("models/gemini");
            assertThat(one.path("supportedGenerationMethods").findValuesAsText("")).isEmpty();
            assertThat(one.path("supportedGenerationMethods").toString()).contains("generateContent");
        }
        JsonNode embed = json(send("GET", "/v1beta/models/gemini-embed", null, "x-goog-api-key", GatewayFixture.KEY));
        assertThat(embed.path("supportedGenerationMethods").toString()).contains("embedContent").doesNotContain("generateContent");
        HttpResponse<String> missing = send("GET", "/v1beta/models/claude", null, "x-goog-api-key", GatewayFixture.KEY);
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(json(missing).path("error").path("status").asText()).isEqualTo("NOT_FOUND");
    }

    @Test
    void embeddingProfilesEmbedAndOnlyThey() throws Exception {
        HttpResponse<String> one = send("POST", "/v1beta/models/gemini-embed:embedContent",
                "{\"content\":{\"parts\":[{\"text\":\"Hello\"}]}}", "x-goog-api-key", GatewayFixture.KEY);
        assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
        assertThat(json(one).path("embedding").path("values").size()).isPositive();
        HttpResponse<String> batch = send("POST", "/v1/models/gemini-embed:batchEmbedContents",
                "{\"requests\":[{\"model\":\"models/gemini-embed\",\"content\":{\"parts\":[{\"text\":\"a\"}]}},"
                        + "{\"model\":\"models/gemini-embed\",\"content\":{\"parts\":[{\"text\":\"b\"}]}}]}",
                "x-goog-api-key", GatewayFixture.KEY);
        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
        assertThat(json(batch).path("embeddings").size()).isEqualTo(2);
        HttpResponse<String> chatProfile = send("POST", "/v1beta/models/gemini:embedContent",
                "{\"content\":{\"parts\":[{\"text\":\"Hello\"}]}}", "x-goog-api-key", GatewayFixture.KEY);
        assertThat(chatProfile.statusCode()).isEqualTo(400);
        assertThat(json(chatProfile).path("error").path("message").asText()).contains("embedding profiles only");
        HttpResponse<String> generate = send("POST", "/v1beta/models/gemini-embed:generateContent", GENERATE,
                "x-goog-api-key", GatewayFixture.KEY);
        assertThat(generate.statusCode()).isEqualTo(400);
    }

    @Test
    void everyAnswerNamesTheProviderModelInItsBodyAndTheProfileInAHeader() throws Exception {
        HttpResponse<String> chat = f.post("/v1/chat/completions", GatewayFixture.KEY,
                "{\"model\":\"chat\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertThat(json(chat).path("model").asText()).isEqualTo("gpt-4o-mini");
        HttpResponse<String> message = send("POST", "/v1/messages", MESSAGE, "x-api-key", GatewayFixture.KEY);
        assertThat(json(message).path("model").asText()).isEqualTo("claude-sonnet-4");
        HttpResponse<String> responses = f.post("/v1/responses", GatewayFixture.KEY,
                "{\"model\":\"gemini\",\"input\":\"Hi\",\"max_output_tokens\":5}");
        assertThat(json(responses).path("model").asText()).isEqualTo("gemini-2.5-flash");
        HttpResponse<String> stream = f.post("/v1/chat/completions", GatewayFixture.KEY,
                "{\"model\":\"claude\",\"stream\":true,\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertThat(stream.body()).contains("\"model\":\"claude-sonnet-4\"");
        for (var r : java.util.List.of(chat, message, responses, stream)) {
            assertThat(r.headers().firstValue("x-sluice-provider-model")).isPresent();
            assertThat(r.headers().firstValue("x-sluice-model-profile")).isPresent();
        }
        assertThat(message.headers().firstValue("x-sluice-model-profile")).contains("claude");
        assertThat(message.headers().firstValue("x-sluice-provider-model")).contains("claude-sonnet-4");
    }

    @Test
    void aTranslatedResponsesRequestCannotContinueAStoredConversation() throws Exception {
        HttpResponse<String> r = f.post("/v1/responses", GatewayFixture.KEY,
                "{\"model\":\"claude\",\"input\":\"Hi\",\"previous_response_id\":\"resp_123\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode e = json(r).path("error");
        assertThat(e.path("param").asText()).isEqualTo("previous_response_id");
        assertThat(e.path("message").asText()).contains("keeps no conversation state");
        HttpResponse<String> builtIn = f.post("/v1/responses", GatewayFixture.KEY,
                "{\"model\":\"gemini\",\"input\":\"Hi\",\"tools\":[{\"type\":\"web_search\"}]}");
        assertThat(builtIn.statusCode()).isEqualTo(400);
        assertThat(json(builtIn).path("error").path("param").asText()).isEqualTo("tools[0].type");
    }
}
