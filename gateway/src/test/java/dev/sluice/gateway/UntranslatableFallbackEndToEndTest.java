package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A profile on the rate-limited mock, then Anthropic, then OpenAI: a request Sluice cannot put in
 * Anthropic's format (two choices) skips it for OpenAI instead of being answered 400.
 */
class UntranslatableFallbackEndToEndTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    private static final String TWO_CHOICES = "{\"model\":\"fallback-translated\",\"n\":2,\"max_tokens\":5,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    @Test
    void aFallbackThatCannotTakeTheRequestInItsFormatIsPassedForTheNext() throws Exception {
        HttpResponse<String> first = f.post("/v1/chat/completions", GatewayFixture.KEY, TWO_CHOICES);
        // The limited mock takes one request per ten seconds: the second is refused there, cannot be translated
        // for Anthropic (which takes one choice only, a feature the fallback policy does not judge), and runs on oa.
        HttpResponse<String> second = f.post("/v1/chat/completions", GatewayFixture.KEY, TWO_CHOICES);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.headers().firstValue("x-sluice-deployment")).contains("limited");
        assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
        assertThat(second.headers().firstValue("x-sluice-deployment")).contains("oa");
        assertThat(second.headers().firstValue("x-sluice-fallback")).contains("untranslatable");
        f.awaitBalanced();
    }
}
