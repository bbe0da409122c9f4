package dev.sluice.gateway.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.gateway.Gateway;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A span per request and per attempt, in the caller's trace, with the GenAI and decision attributes. */
class SluiceTracingTest {

    /** Keeps every span it is given, in memory. */
    static final class CollectingExporter implements SpanExporter {
        final List<SpanData> spans = new CopyOnWriteArrayList<>();

        @Override
        public CompletableResultCode export(Collection<SpanData> batch) {
            spans.addAll(batch);
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }

    static final CollectingExporter SPANS = new CollectingExporter();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    static Vertx vertx;
    static MockProviderServer openai;
    static Gateway gateway;
    static SluiceTracing tracing;

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        openai = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)));
        SluiceConfig c = ConfigLoader.parse("""
                server: { port: 0 }
                deployments: { east: { kind: openai, base_url: "%s", limits: { rpm: 600 } } }
                profiles: { chat: { deployment: east, model: gpt-4o-mini } }
                orgs: { o: { tenants: { acme: { teams: { x: { keys: {
                    k: { secret: "sk-client-key" }, one: { secret: "sk-one", limits: { rpm: 1 } } } } } } } } }
                """.formatted(openai.baseUrl()), "tracing.yaml", v -> null);
        tracing = SluiceTracing.to(SPANS, "sluice-test");
        gateway = await(Gateway.builder(c).vertx(vertx).instances(1).events(tracing).start());
    }

    @AfterAll
    static void stop() throws Exception {
        await(gateway.stop());
        tracing.close();
        await(openai.close());
        await(vertx.close());
    }

    @BeforeEach
    void clear() {
        SPANS.spans.clear();
    }

    static HttpResponse<String> chat(String key, String traceparent) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v1/chat/completions"))
                .header("authorization", "Bearer " + key).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"chat\",\"messages\":[{\"role\":\"user\","
                        + "\"content\":\"hello\"}]}"));
        if (traceparent != null) {
            b.header("traceparent", traceparent);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The spans of trace {@code traceId}, once {@code count} have been exported (the answer leaves before them). */
    static List<SpanData> spans(String traceId, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<SpanData> out;
        do {
            out = SPANS.spans.stream().filter(s -> s.getTraceId().equals(traceId)).toList();
        } while (out.size() < count && System.nanoTime() < deadline);
        return out;
    }

    static SpanData kind(List<SpanData> spans, SpanKind k) {
        return spans.stream().filter(s -> s.getKind() == k).findFirst().orElseThrow();
    }

    @Test
    void aRequestIsAServerSpanUnderTheCallersSpanAndItsAttemptAClientSpanUnderIt() throws Exception {
        HttpResponse<String> r = chat("sk-client-key", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode usage = JSON.readTree(r.body()).path("usage");
        List<SpanData> spans = spans("0af7651916cd43dd8448eb211c80319c", 2);
        assertThat(spans).hasSize(2);
        SpanData request = kind(spans, SpanKind.SERVER);
        SpanData attempt = kind(spans, SpanKind.CLIENT);
        assertThat(request.getParentSpanId()).isEqualTo("b7ad6b7169203331");
        assertThat(request.getName()).isEqualTo("openai.chat");
        assertThat(request.getAttributes().get(AttributeKey.stringKey("sluice.decision"))).isEqualTo("admitted");
        assertThat(request.getAttributes().get(AttributeKey.stringKey("sluice.tenant"))).isEqualTo("acme");
        assertThat(request.getAttributes().get(AttributeKey.longKey("http.response.status_code"))).isEqualTo(200);
        assertThat(attempt.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(attempt.getName()).isEqualTo("chat gpt-4o-mini");
        assertThat(attempt.getAttributes().get(AttributeKey.stringKey("gen_ai.provider.name"))).isEqualTo("openai");
        assertThat(attempt.getAttributes().get(AttributeKey.stringKey("gen_ai.request.model"))).isEqualTo("gpt-4o-mini");
        assertThat(attempt.getAttributes().get(AttributeKey.longKey("gen_ai.usage.input_tokens")))
                .isEqualTo(usage.path("prompt_tokens").asLong());
        assertThat(attempt.getAttributes().get(AttributeKey.longKey("gen_ai.usage.output_tokens")))
                .isEqualTo(usage.path("completion_tokens").asLong());
        assertThat(attempt.getStartEpochNanos()).isGreaterThanOrEqualTo(request.getStartEpochNanos());
        assertThat(attempt.getEndEpochNanos()).isLessThanOrEqualTo(request.getEndEpochNanos());
        assertThat(request.getResource().getAttribute(AttributeKey.stringKey("service.name"))).isEqualTo("sluice-test");
    }

    @Test
    void withoutATraceparentTheRequestSpanIsTheRootOfTheTraceSluiceAnswersWith() throws Exception {
        HttpResponse<String> r = chat("sk-client-key", null);
        String traceId = r.headers().firstValue("x-sluice-trace-id").orElseThrow();
        SpanData request = kind(spans(traceId, 2), SpanKind.SERVER);
        assertThat(request.getParentSpanContext().isValid()).isFalse();
    }

    @Test
    void aLocalRefusalIsOneSpanNamingTheLimiterAndScopeThatDecided() throws Exception {
        String traceparent = "00-1af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        chat("sk-one", traceparent);
        chat("sk-one", traceparent);
        List<SpanData> spans = spans("1af7651916cd43dd8448eb211c80319c", 3);
        SpanData refused = spans.stream().filter(s -> "rejected".equals(s.getAttributes().get(
                AttributeKey.stringKey("sluice.decision")))).findFirst().orElseThrow();
        assertThat(refused.getAttributes().get(AttributeKey.stringKey("sluice.limiter"))).isEqualTo("rpm");
        assertThat(refused.getAttributes().get(AttributeKey.stringKey("sluice.scope"))).isEqualTo("key:one");
        assertThat(refused.getAttributes().get(AttributeKey.longKey("http.response.status_code"))).isEqualTo(429);
        assertThat(spans.stream().filter(s -> s.getParentSpanId().equals(refused.getSpanId()))).as("no attempt")
                .isEmpty();
    }
}
