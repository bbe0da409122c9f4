package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Inputs that would slip past the reservation or be served under the wrong key are refused with a 400. */
class InputValidationTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    @Test
    void aMaxTokensBeyond32BitsIs400NotIgnoredForTheProfileDefault() throws Exception {
        long requests = f.gateway.counters().reservationsOpened();
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY,
                ErrorsTest.chat("chat", ",\"max_tokens\":3000000000"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("max_tokens is 3000000000, outside the 32-bit integers");
        assertThat(f.gateway.counters().reservationsOpened()).as("nothing reserved").isEqualTo(requests);
    }

    @Test
    void anOverflowingGeminiParameterIs400InGeminisShape() throws Exception {
        HttpResponse<String> r = f.post("/v1beta/models/gemini:generateContent", null, "{\"contents\":[{\"role\":\"user\","
                + "\"parts\":[{\"text\":\"hi\"}]}],\"generationConfig\":{\"maxOutputTokens\":99999999999999999999}}",
                "x-goog-api-key", GatewayFixture.KEY);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("\"status\":\"INVALID_ARGUMENT\"", "generationConfig.maxOutputTokens is 99999999999999999999");
    }

    @Test
    void twoDifferentKeysInTwoHeadersAre400AndTheSameKeyTwiceIsServed() throws Exception {
        HttpResponse<String> conflict = f.post("/v1/chat/completions", GatewayFixture.KEY, ErrorsTest.chat("chat", ""),
                "x-api-key", GatewayFixture.KEY_TIGHT);
        assertThat(conflict.statusCode()).isEqualTo(400);
        assertThat(conflict.body()).contains("\"code\":\"conflicting_credentials\"")
                .doesNotContain(GatewayFixture.KEY).doesNotContain(GatewayFixture.KEY_TIGHT);
        HttpResponse<String> same = f.post("/v1/chat/completions", GatewayFixture.KEY, ErrorsTest.chat("chat", ""),
                "x-api-key", GatewayFixture.KEY);
        assertThat(same.statusCode()).isEqualTo(200);
    }

    @Test
    void oneHeaderOrQueryParameterGivenTwiceWithDifferentKeysIs400Too() throws Exception {
        HttpResponse<String> headers = f.post("/v1/messages", null, EndToEndTest.MESSAGES.formatted(""),
                "x-api-key", GatewayFixture.KEY, "x-api-key", GatewayFixture.KEY_TIGHT, "anthropic-version", "2023-06-01");
        assertThat(headers.statusCode()).isEqualTo(400);
        assertThat(headers.body()).contains("conflicting_credentials").doesNotContain(GatewayFixture.KEY_TIGHT);
        HttpResponse<String> query = f.post("/v1beta/models/gemini:generateContent?key=" + GatewayFixture.KEY + "&key="
                + GatewayFixture.KEY_TIGHT, null, "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}");
        assertThat(query.statusCode()).isEqualTo(400);
        assertThat(query.body()).contains("\"status\":\"INVALID_ARGUMENT\"", "conflicting_credentials");
        HttpResponse<String> same = f.post("/v1/messages", null, EndToEndTest.MESSAGES.formatted(""),
                "x-api-key", GatewayFixture.KEY, "x-api-key", GatewayFixture.KEY, "anthropic-version", "2023-06-01");
        assertThat(same.statusCode()).as(same.body()).isEqualTo(200);
    }
}
