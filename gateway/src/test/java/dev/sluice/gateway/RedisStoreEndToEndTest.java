package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.redis.RedisQuotaStore;
import dev.sluice.store.redis.RedisStoreConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Whole requests through the gateway on the shared Redis store (127.0.0.1:6379, started by
 * bin/with-services): admission and settlement run on a worker, the provider call and the answer
 * back on the request's event loop, and every reservation is settled.
 */
class RedisStoreEndToEndTest {

    private static final String ANSWER = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
             "choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}""";

    private static final String STREAM = """
            data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}

            data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

            data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}

            data: [DONE]

            """;

    @Test
    void jsonAndStreamedRequestsAreAnsweredAndSettledOnTheRedisStore() throws Exception {
        Vertx vertx = Vertx.vertx();
        HttpServer provider = GatewayFixture.await(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                .requestHandler(req -> req.body().onSuccess(b -> {
                    if (b.toString().contains("\"stream\":true")) {
                        req.response().putHeader("content-type", "text/event-stream").setChunked(true).end(STREAM);
                    } else {
                        req.response().putHeader("content-type", "application/json").end(ANSWER);
                    }
                })).listen(0));
        SluiceConfig config = ConfigLoader.parse("""
                server: { port: 0 }
                store: { kind: redis }
                deployments: { d: { kind: openai-compatible, base_url: "http://127.0.0.1:%d/v1", limits: { rpm: 1000, tpm: 1000000 } } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { t: { teams: { x: { keys: { k: { secret: "sk-redis" } } } } } } } }
                """.formatted(provider.actualPort()), "redis.yaml", v -> null);
        RedisQuotaStore store = RedisQuotaStore.connect("redis://127.0.0.1:6379",
                RedisStoreConfig.builder().namespace("sluice-e2e-" + UUID.randomUUID()).build());
        Gateway g = GatewayFixture.await(Gateway.builder(config).vertx(vertx).instances(1).store(store).start());
        try {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (boolean stream : new boolean[] {false, true, false, true}) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                        .header("authorization", "Bearer sk-redis").header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"p\",\"stream\":" + stream
                                + ",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(r.body()).contains(stream ? "data: [DONE]" : "\"content\":\"hi\"");
            }
            // Settlement follows the answer's write (on a worker here), so the client may read the answer first.
            GatewayFixture.awaitCondition(vertx, () -> g.counters().balanced() && g.counters().reservationsSettled() == 4,
                    () -> "not all four settled: " + g.counters());
        } finally {
            GatewayFixture.await(g.stop());
            store.close();
            GatewayFixture.await(vertx.close());
        }
    }
}
