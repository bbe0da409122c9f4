package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Provider connections through the gateway: kept alive and reused from one request to the next,
 * and opened anew, without losing a request, when the provider closes each one.
 */
class UpstreamConnectionsTest {

    private static final String ANSWER = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
             "choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}""";

    @ParameterizedTest(name = "provider closes each connection: {0}")
    @ValueSource(booleans = {false, true})
    void requestsOneAfterAnotherReuseTheProvidersConnectionUnlessItClosesIt(boolean providerCloses) throws Exception {
        Vertx vertx = Vertx.vertx();
        Set<Integer> connections = ConcurrentHashMap.newKeySet();
        List<String> hosts = new CopyOnWriteArrayList<>();
        HttpServer provider = GatewayFixture.await(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                .connectionHandler(c -> connections.add(c.remoteAddress().port()))
                .requestHandler(req -> req.body().onSuccess(b -> {
                    hosts.add(req.headers().get("host"));
                    var resp = req.response().putHeader("content-type", "application/json");
                    if (providerCloses) {
                        resp.putHeader("connection", "close");
                    }
                    resp.end(ANSWER);
                })).listen(0));
        SluiceConfig config = ConfigLoader.parse("""
                server: { port: 0 }
                deployments: { d: { kind: openai-compatible, base_url: "http://127.0.0.1:%d/v1", limits: { rpm: 1000 } } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { t: { teams: { x: { keys: { k: { secret: "sk-reuse" } } } } } } } }
                """.formatted(provider.actualPort()), "reuse.yaml", v -> null);
        Gateway g = GatewayFixture.await(Gateway.builder(config).vertx(vertx).instances(1).start());
        try {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                        .header("authorization", "Bearer sk-reuse").header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"model\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"hello " + i + "\"}]}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(r.body()).contains("\"content\":\"hi\"");
            }
            assertThat(connections).hasSize(providerCloses ? 5 : 1);
            assertThat(hosts).hasSize(5).containsOnly("127.0.0.1:" + provider.actualPort());
            // Settlement follows the answer's write, so the client may read the answer first.
            GatewayFixture.awaitCondition(vertx, () -> g.counters().balanced(), () -> "not balanced: " + g.counters());
        } finally {
            GatewayFixture.await(g.stop());
            GatewayFixture.await(vertx.close());
        }
    }
}
