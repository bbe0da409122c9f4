package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A profile on two mock deployments whose first answers 429 once its window is used. */
class FallbackEndToEndTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String chat(String profile) {
        return "{\"model\":\"" + profile + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":5}";
    }

    @Test
    void aProvider429MovesTheRequestToTheNextDeploymentAndTheAnswerSaysSo() throws Exception {
        HttpResponse<String> first = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("fallback"));
        // The limited mock takes one request per ten seconds: the second is refused there and served by oa.
        HttpResponse<String> second = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("fallback"));

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.headers().firstValue("x-sluice-deployment")).contains("limited");
        assertThat(first.headers().firstValue("x-sluice-fallback")).isEmpty();
        assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
        assertThat(second.headers().firstValue("x-sluice-deployment")).contains("oa");
        assertThat(second.headers().firstValue("x-sluice-fallback")).contains("provider_429");
        assertThat(second.headers().firstValue("x-sluice-provider-model")).contains("gpt-4o-mini");

        // The limited deployment is cooling down after its 429: the next request goes to oa without trying it.
        HttpResponse<String> third = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("fallback"));
        assertThat(third.statusCode()).as(third.body()).isEqualTo(200);
        assertThat(third.headers().firstValue("x-sluice-deployment")).contains("oa");
        assertThat(third.headers().firstValue("x-sluice-fallback")).contains("headroom");
        f.awaitBalanced();
    }

    @Test
    void aBatchRequestNeverFallsBackAndItsRefusalNamesTheRule() throws Exception {
        HttpResponse<String> refused = null;
        for (int i = 0; i < 10 && refused == null; i++) {
            HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY_BATCH, chat("fallback-flaky"));
            assertThat(r.headers().firstValue("x-sluice-deployment")).isNotEqualTo(java.util.Optional.of("oa"));
            if (r.statusCode() != 200) {
                refused = r;
            }
        }

        assertThat(refused).as("the flaky mock takes one request a second").isNotNull();
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        JsonNode e = JSON.readTree(refused.body()).path("error");
        assertThat(e.path("fallback_allowed").asBoolean(true)).isFalse();
        assertThat(e.path("fallback_forbidden_by").asText()).isEqualTo("class");
        f.awaitBalanced();
    }
}
