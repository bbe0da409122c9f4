package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Provider signals reach adaptive control, which then protects the deployment before the provider has to. */
class AdaptiveEndToEndTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(true);



    static String chat(String profile) {
        return "{\"model\":\"" + profile + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":5}";
    }

    static String decision(HttpResponse<String> r) throws Exception {
        return new ObjectMapper().readTree(r.body()).path("error").path("gateway_decision").asText();
    }

    @Test
    void afterAProviderRejectionTheDeploymentIsProtectedLocally() throws Exception {
        assertThat(f.gateway.adaptive()).isPresent();
        assertThat(f.gateway.adaptive().get().find("limited")).isPresent();
        assertThat(f.post("/v1/chat/completions", GatewayFixture.KEY, chat("limited")).statusCode()).isEqualTo(200);
        HttpResponse<String> provider = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("limited"));
        assertThat(provider.statusCode()).isEqualTo(429);
        assertThat(decision(provider)).isEqualTo("admitted_then_provider_rejected");

        HttpResponse<String> local = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("limited"));
        assertThat(local.statusCode()).isEqualTo(429);
        assertThat(decision(local)).isNotEqualTo("admitted_then_provider_rejected");
        assertThat(local.headers().firstValue("retry-after-ms")).isPresent();
        f.awaitBalanced();
    }
}
