package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A profile's first deployment cut or failing at the provider, through the real gateway: the
 * request is answered by the next deployment, the answer names it and why, and every reservation
 * (the failed one included) has ended.
 */
class FallbackCutEndToEndTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    private static String chat(String profile) {
        return "{\"model\":\"" + profile + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":5}";
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
        "fallback-cut, unreachable",      // nothing listens: the connection is refused
        "fallback-reset, connection_reset", // the connection is closed before any answer
        "fallback-502, provider_5xx",     // a 502 from a proxy in front of the provider
        "fallback-hang, provider_timeout", // nothing within upstream_timeout (2 s)
    })
    void aFailedFirstDeploymentMovesTheRequestToTheNextAndTheAnswerSaysWhy(String profile, String reason)
            throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, chat(profile));

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("x-sluice-deployment")).contains("oa");
        assertThat(r.headers().firstValue("x-sluice-fallback")).contains(reason);
        assertThat(r.body()).contains("chat.completion");
        f.awaitBalanced();
    }
}
