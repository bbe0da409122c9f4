package dev.sluice.gateway.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code tracing: { exporter: otlp }} sends the spans to a collector: here a receiver on 127.0.0.1. */
class OtlpExportTest {

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void theSpansOfARequestReachTheConfiguredCollectorByTheTimeTheGatewayHasStopped() throws Exception {
        Vertx vertx = Vertx.vertx();
        List<String> types = new CopyOnWriteArrayList<>();
        List<byte[]> bodies = new CopyOnWriteArrayList<>();
        HttpServer collector = await(vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            if (req.path().equals("/v1/traces")) {
                types.add(req.getHeader("content-type"));
                bodies.add(b.getBytes());
            }
            req.response().setStatusCode(200).putHeader("content-type", "application/x-protobuf").end();
        })).listen(0, "127.0.0.1"));
        MockProviderServer openai = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)));
        try {
            SluiceConfig c = ConfigLoader.parse("""
                    server: { port: 0 }
                    tracing: { exporter: otlp, endpoint: "http://127.0.0.1:%d/v1/traces", service_name: sluice-otlp }
                    deployments: { east: { kind: openai, base_url: "%s" } }
                    profiles: { chat: { deployment: east, model: gpt-4o-mini } }
                    orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-client-key" } } } } } } } }
                    """.formatted(collector.actualPort(), openai.baseUrl()), "otlp.yaml", v -> null);
            Gateway gateway = await(Gateway.builder(c).vertx(vertx).instances(1).start());
            String traceId = "2af7651916cd43dd8448eb211c80319c";
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    gateway.baseUrl() + "/v1/chat/completions")).header("authorization", "Bearer sk-client-key")
                    .header("content-type", "application/json").header("traceparent", "00-" + traceId
                            + "-b7ad6b7169203331-01")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"chat\",\"messages\":[{\"role\":\"user\","
                            + "\"content\":\"hello\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            await(gateway.stop()); // stopping exports what the batch still holds
            assertThat(types).isNotEmpty().allMatch("application/x-protobuf"::equals);
            byte[] all = bodies.stream().reduce(new byte[0], (a, b) -> {
                byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
                System.arraycopy(b, 0, out, a.length, b.length);
                return out;
            });
            // OTLP's protobuf carries the trace id as its 16 raw bytes, the service name and span names as text.
            assertThat(indexOf(all, HexFormat.of().parseHex(traceId))).isNotNegative();
            assertThat(new String(all, java.nio.charset.StandardCharsets.ISO_8859_1)).contains("sluice-otlp")
                    .contains("chat gpt-4o-mini").contains("openai.chat").doesNotContain("sk-client-key");
        } finally {
            await(openai.close());
            await(collector.close());
            await(vertx.close());
        }
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
