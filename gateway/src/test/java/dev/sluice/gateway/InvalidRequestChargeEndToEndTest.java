package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bodies the provider refuses as invalid, through the gateway to the mock providers: a tenant
 * allowed five requests a minute sends ten the Anthropic mock refuses (400, not counted by the
 * provider) and still has its five; on OpenAI, which counts failed requests, each refusal costs
 * the tenant its request and nothing else. A request that can never fit is a 413 that invites no
 * retry at all.
 */
class InvalidRequestChargeEndToEndTest {

    private static final Scope TENANT = Scope.of(ScopeLevel.TENANT, "t");
    private static final Vertx VERTX = Vertx.vertx();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        MockProviderServer anthropic = GatewayFixture.await(MockProviderServer.start(VERTX, MockConfig.defaults(Flavour.ANTHROPIC)));
        MockProviderServer openai = GatewayFixture.await(MockProviderServer.start(VERTX, MockConfig.defaults(Flavour.OPENAI)));
        SluiceConfig config = ConfigLoader.parse("""
                server: { host: 127.0.0.1, port: 0 }
                deployments:
                  an: { kind: anthropic, base_url: "%s" }
                  oa: { kind: openai, base_url: "%s" }
                profiles:
                  claude: { deployment: an, model: claude-sonnet-4 }
                  chat: { deployment: oa, model: gpt-4o-mini }
                orgs:
                  o:
                    tenants:
                      t:
                        limits: { rpm: 5, input_tpm: 100000 }
                        teams:
                          x:
                            keys:
                              k: { secret: "sk-invalid" }
                              small: { secret: "sk-small", limits: { output_tpm: 1000 } }
                """.formatted(anthropic.baseUrl(), openai.baseUrl()), "invalid.yaml", v -> null);
        gateway = GatewayFixture.await(Gateway.builder(config).vertx(VERTX).instances(1).start());
    }

    @AfterAll
    static void stop() throws Exception {
        GatewayFixture.await(gateway.stop());
        GatewayFixture.await(VERTX.close());
    }

    private static HttpResponse<String> post(String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path))
                .timeout(Duration.ofSeconds(20)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> messages(String extra) throws Exception {
        return post("/v1/messages", "{\"model\":\"claude\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]"
                + extra + "}", "x-api-key", "sk-invalid", "anthropic-version", "2023-06-01");
    }

    private static HttpResponse<String> chat(String extra) throws Exception {
        return post("/v1/chat/completions", "{\"model\":\"chat\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]"
                + extra + "}", "authorization", "Bearer sk-invalid");
    }

    private static double tenantLeft(Dimension d) {
        return gateway.governor().bucket(TENANT).orElseThrow().of(d).orElseThrow().available();
    }

    @Test
    void invalidBodiesCostTheTenantOnlyWhatTheProviderCounted() throws Exception {
        // The Anthropic API requires max_tokens; the mock refuses its absence with 400 before its limits count it.
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> r = messages("");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(r.body()).contains("invalid_request_error");
        }
        GatewayFixture.awaitCondition(VERTX, () -> gateway.counters().balanced(), () -> gateway.counters().toString());
        assertThat(tenantLeft(Dimension.REQUESTS)).as("ten refusals, none counted").isGreaterThanOrEqualTo(5);
        assertThat(tenantLeft(Dimension.INPUT_TOKENS)).isGreaterThanOrEqualTo(100_000);
        assertThat(messages(",\"max_tokens\":16").statusCode()).isEqualTo(200);

        // OpenAI counts a failed request: a max_tokens of 0 is refused and costs the request, not its tokens.
        double before = tenantLeft(Dimension.REQUESTS);
        HttpResponse<String> r = chat(",\"max_tokens\":0");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        GatewayFixture.awaitCondition(VERTX, () -> gateway.counters().balanced(), () -> gateway.counters().toString());
        assertThat(tenantLeft(Dimension.REQUESTS)).isLessThan(before).isGreaterThan(before - 1.01);
        assertThat(tenantLeft(Dimension.INPUT_TOKENS)).isGreaterThan(99_900);
    }

    @Test
    void aRequestThatCanNeverFitIsA413WithNoRetryHintOnAnyRoute() throws Exception {
        // The key may produce 1,000 output tokens a minute; 5,000 can never fit, however long one waits.
        HttpResponse<String> openAi = post("/v1/chat/completions", "{\"model\":\"chat\",\"max_tokens\":5000,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}", "authorization", "Bearer sk-small");
        HttpResponse<String> anthropic = post("/v1/messages", "{\"model\":\"claude\",\"max_tokens\":5000,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}", "x-api-key", "sk-small",
                "anthropic-version", "2023-06-01");
        for (HttpResponse<String> r : java.util.List.of(openAi, anthropic)) {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
            assertThat(r.headers().firstValue("retry-after")).isEmpty();
            assertThat(r.headers().firstValue("retry-after-ms")).isEmpty();
            assertThat(r.headers().firstValue("x-should-retry")).contains("false");
            assertThat(r.body()).contains("too_large").doesNotContain("\"retry_after_ms\":1");
        }
    }
}
