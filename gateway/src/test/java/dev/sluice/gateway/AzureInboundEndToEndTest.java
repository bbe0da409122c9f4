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
 * An Azure OpenAI SDK given the gateway as its endpoint: it calls
 * {@code {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...} with its key
 * in {@code api-key} and no model in the body; the deployment name is the profile.
 */
class AzureInboundEndToEndTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}],\"max_tokens\":20%s}";

    /** A request as the Azure SDKs send it: the key in {@code api-key}, nothing in Authorization. */
    private static HttpResponse<String> azure(String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(f.base() + path)).timeout(Duration.ofSeconds(20))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return f.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aDeploymentPathWithAnApiKeyIsServedByTheProfileItNames() throws Exception {
        for (String profile : new String[] {"chat", "azure-chat"}) {
            HttpResponse<String> r = azure("/openai/deployments/" + profile + "/chat/completions?api-version=2024-10-21",
                    CHAT.formatted(""), "api-key", GatewayFixture.KEY);

            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.headers().firstValue("x-sluice-model-profile")).contains(profile);
            JsonNode body = JSON.readTree(r.body());
            assertThat(body.path("choices").get(0).path("message").path("content").asText()).isNotEmpty();
            assertThat(body.path("usage").path("completion_tokens").asLong()).isPositive();
        }
        HttpResponse<String> s = azure("/openai/deployments/chat/chat/completions?api-version=2025-04-01-preview",
                CHAT.formatted(",\"stream\":true"), "api-key", GatewayFixture.KEY);
        assertThat(s.statusCode()).isEqualTo(200);
        assertThat(s.body()).contains("chat.completion.chunk").endsWith("data: [DONE]\n\n");
    }

    @Test
    void aBearerTokenIsTakenTooAndTheSameKeyInBothPlacesIsOne() throws Exception {
        String path = "/openai/deployments/chat/chat/completions?api-version=2024-10-21";
        assertThat(azure(path, CHAT.formatted(""), "authorization", "Bearer " + GatewayFixture.KEY).statusCode())
                .isEqualTo(200);
        assertThat(azure(path, CHAT.formatted(""), "authorization", "Bearer " + GatewayFixture.KEY,
                "api-key", GatewayFixture.KEY).statusCode()).isEqualTo(200);
    }

    @Test
    void twoDifferentKeysAreRefusedInAzuresShape() throws Exception {
        HttpResponse<String> r = azure("/openai/deployments/chat/chat/completions?api-version=2024-10-21",
                CHAT.formatted(""), "authorization", "Bearer " + GatewayFixture.KEY, "api-key", "sk-other");

        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode e = JSON.readTree(r.body()).path("error");
        assertThat(e.path("code").asText()).isEqualTo("conflicting_credentials");
        assertThat(e.path("message").asText()).doesNotContain("sk-other").doesNotContain(GatewayFixture.KEY);
    }

    @Test
    void aMissingOrMalformedApiVersionIs400NamingTheParameter() throws Exception {
        for (String query : new String[] {"", "?api-version=", "?api-version=yesterday"}) {
            HttpResponse<String> r = azure("/openai/deployments/chat/chat/completions" + query, CHAT.formatted(""),
                    "api-key", GatewayFixture.KEY);

            assertThat(r.statusCode()).as(query).isEqualTo(400);
            JsonNode e = JSON.readTree(r.body()).path("error");
            assertThat(e.path("code").asText()).isEqualTo("invalid_api_version");
            assertThat(e.path("param").asText()).isEqualTo("api-version");
            assertThat(e.path("message").asText()).contains("api-version");
        }
    }

    @Test
    void aDeploymentNameThatIsNoProfileOfTheKeyIs404() throws Exception {
        HttpResponse<String> r = azure("/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
                CHAT.formatted(""), "api-key", GatewayFixture.KEY);

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(r.body()).path("error").path("code").asText()).isEqualTo("model_not_found");
    }
}
