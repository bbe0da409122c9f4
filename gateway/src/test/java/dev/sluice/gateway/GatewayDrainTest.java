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
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A graceful stop ({@link Gateway#drain}, then {@link Gateway#stop}) answers every request it has
 * taken, one waiting in the governor's queue included: the queue's wake-ups keep running until
 * the last request is answered.
 */
class GatewayDrainTest {

    private static final String ANSWER = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
             "choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}""";

    @Test
    void aRequestQueuedWhenTheStopBeginsIsStillServed() throws Exception {
        Vertx vertx = Vertx.vertx();
        HttpServer provider = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                .requestHandler(req -> req.body().onSuccess(b -> req.response()
                        .putHeader("content-type", "application/json").end(ANSWER)))
                .listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        // 20 a minute, burst 1: of two requests at once, one waits 3 s for the refill.
        SluiceConfig config = ConfigLoader.parse("""
                server: { port: 0 }
                deployments:
                  d: { kind: openai-compatible, base_url: "http://127.0.0.1:%d/v1", limits: { rpm: { amount: 20, burst: 1 } } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { t: { teams: { x: { keys: { k: { secret: "sk-drain", class: batch, max_class: batch } } } } } } } }
                """.formatted(provider.actualPort()), "drain.yaml", v -> null);
        Gateway g = Gateway.builder(config).vertx(vertx).adaptive(false).start()
                .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try {
            CompletableFuture<HttpResponse<String>> first = send(http, g);
            CompletableFuture<HttpResponse<String>> queued = send(http, g);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (g.governor().queuedDemand().isEmpty()) {
                assertThat(System.nanoTime()).as("queued in time").isLessThan(until);
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }

            g.drain().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);

            // The drain ended only once the queued request had its capacity and its answer: both are
            // answered on the gateway's side when it completes. (The client may read the last bytes a
            // moment later, so its futures are awaited, not asserted done.)
            assertThat(g.counters().answered()).isEqualTo(2);
            assertThat(g.counters().reservationsOpen()).isZero();
            HttpResponse<String> a = first.get(5, TimeUnit.SECONDS);
            HttpResponse<String> b = queued.get(5, TimeUnit.SECONDS);
            assertThat(a.statusCode()).as(a.body()).isEqualTo(200);
            assertThat(b.statusCode()).as(b.body()).isEqualTo(200);
        } finally {
            g.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
            provider.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static CompletableFuture<HttpResponse<String>> send(HttpClient http, Gateway g) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                .header("authorization", "Bearer sk-drain").header("content-type", "application/json")
                .header("x-sluice-deadline-ms", "8000").timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"p\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
