package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A whole native answer larger than {@code UpstreamCall.PASS_ON_ABOVE_BYTES} is passed on as it
 * arrives, not held: the client gets exactly the provider's bytes, its usage (at the end of the
 * body) is read on the way and settled; one that breaks off resets the client's connection and
 * ends its attempt as failed.
 */
class LargeAnswerPassThroughTest {

    private static final Vertx VERTX = Vertx.vertx();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final Scope KEY = Scope.of(ScopeLevel.API_KEY, "k");
    private static final byte[] ANSWER = ("{\"id\":\"chatcmpl-large\",\"object\":\"chat.completion\",\"model\":\"gpt-4o-mini\","
            + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + "x".repeat(1 << 20)
            + "\"},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":70,"
            + "\"total_tokens\":79}}").getBytes(StandardCharsets.UTF_8);
    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        HttpServer provider = GatewayFixture.await(VERTX.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                .requestHandler(req -> req.body().onSuccess(b -> {
                    var resp = req.response().putHeader("content-type", "application/json");
                    if (b.toString().contains("broken")) {
                        // Half the answer in chunks, then the connection is cut.
                        resp.setChunked(true).write(Buffer.buffer(ANSWER).slice(0, ANSWER.length / 2))
                                .onComplete(v -> req.connection().close());
                    } else {
                        resp.end(Buffer.buffer(ANSWER));
                    }
                })).listen(0));
        SluiceConfig config = ConfigLoader.parse("""
                server: { host: 127.0.0.1, port: 0 }
                deployments: { d: { kind: openai-compatible, base_url: "http://127.0.0.1:%d/v1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { t: { teams: { x: { keys: { k: { secret: "sk-large", limits: { output_tpm: 100000 } } } } } } } } }
                """.formatted(provider.actualPort()), "large.yaml", v -> null);
        gateway = GatewayFixture.await(Gateway.builder(config).vertx(VERTX).instances(1).start());
    }

    @AfterAll
    static void stop() throws Exception {
        GatewayFixture.await(gateway.stop());
        GatewayFixture.await(VERTX.close());
    }

    private static HttpResponse<byte[]> chat(String content) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(20)).header("authorization", "Bearer sk-large")
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"p\",\"max_tokens\":100,\"messages\":[{\"role\":"
                        + "\"user\",\"content\":\"" + content + "\"}]}")).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Output tokens the key's bucket has settled: what the answers reported (a broken one reports none). */
    private static long outputSettled() {
        return gateway.governor().bucket(KEY).orElseThrow().of(Dimension.OUTPUT_TOKENS).orElseThrow().settled();
    }

    @Test
    void aLargeAnswerReachesTheClientWholeAndIsSettledOnTheUsageItCarries() throws Exception {
        HttpResponse<byte[]> r = chat("hello");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(ANSWER);
        GatewayFixture.awaitCondition(VERTX, () -> gateway.counters().balanced(), () -> gateway.counters().toString());
        // 100 reserved, 70 reported at the end of the body: 70 settled, 30 refunded.
        assertThat(outputSettled()).isEqualTo(70);
    }

    @Test
    void aLargeAnswerThatBreaksOffResetsTheClientAndEndsItsAttemptAsFailed() throws Exception {
        long settled = gateway.counters().reservationsSettled();

        assertThatThrownBy(() -> chat("broken")).isInstanceOf(IOException.class);
        GatewayFixture.awaitCondition(VERTX, () -> gateway.counters().balanced()
                && gateway.counters().reservationsSettled() == settled + 1, () -> gateway.counters().toString());
    }
}
