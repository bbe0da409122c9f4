package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What clients get of a provider's error: a refusal of the deployment's credentials is Sluice's
 * 502, not the client's 401; other errors keep their status, kind and message, minus anything
 * credential- or host-like; the provider's retry hint is capped as Sluice's own.
 */
class ProviderErrorsRelayTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(false, ", max_answer_bytes: 100000");

    private HttpResponse<String> call(String profile) throws Exception {
        return f.post("/v1/chat/completions", GatewayFixture.KEY, ErrorsTest.chat(profile, ""));
    }

    private static void assertNothingLeaked(HttpResponse<String> r) {
        for (String secret : FakeUpstream.LEAKED) {
            assertThat(r.body()).as("body").doesNotContain(secret);
            assertThat(r.headers().map().toString()).as("headers").doesNotContain(secret);
        }
    }

    @Test
    void aProviderRefusingTheDeploymentsCredentialsIs502NamingTheDeploymentWithNoProviderText() throws Exception {
        HttpResponse<String> r = call("fake-leaky-unauthorized");
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).contains("\"code\":\"provider_credentials_rejected\"", "fake-leaky-unauthorized",
                "your API key is fine").doesNotContain("Incorrect API key");
        assertNothingLeaked(r);
    }

    @Test
    void aProviderErrorKeepsStatusTypeAndCodeButLosesAddressesAndTokensAndTheHintIsCappedAtAMinute() throws Exception {
        HttpResponse<String> r = call("fake-leaky-overloaded");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("\"type\":\"server_error\"", "\"code\":\"overloaded\"", "Overloaded at [redacted]");
        assertThat(r.headers().firstValue("retry-after")).hasValue("60");
        assertNothingLeaked(r);
    }

    @Test
    void aProviderErrorLosesItsUrlsAndEveryFieldButItsKindAndMessage() throws Exception {
        HttpResponse<String> r = call("fake-leaky-invalid");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("\"code\":\"invalid_image_url\"", "\"param\":\"messages\"", "Could not fetch [redacted]")
                .doesNotContain("internal");
        assertNothingLeaked(r);
    }

    @Test
    void anHtmlErrorFromAProxyBecomesAJsonErrorSayingOnlyTheStatus() throws Exception {
        HttpResponse<String> r = call("fake-html-error");
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(r.body()).contains("The provider answered HTTP 502 without a readable error.");
        assertNothingLeaked(r);
    }

    @Test
    void aWholeAnswerBeyondTheCapIs502AndItsReservationSettledAsEstimated() throws Exception {
        long settled = f.gateway.counters().reservationsSettled();
        HttpResponse<String> r = call("fake-big-answer");
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).contains("\"code\":\"upstream_answer_too_large\"", "100000 bytes");
        f.awaitBalanced();
        assertThat(f.gateway.counters().reservationsSettled()).isEqualTo(settled + 1);
    }
}
