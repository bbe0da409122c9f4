package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The bare proxy passes answers through unchanged: in this JVM, on loopback, in front of the fake upstream. */
class BareProxyTest {

    /** Status, a header that matters to the client, and the exact body bytes. */
    record Answer(int status, String contentType, Buffer body) {}

    static Vertx vertx;
    static FakeUpstream upstream;
    static BareProxy proxy;
    static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        upstream = await(FakeUpstream.start(vertx, 1));
        // Two listeners, so that the shared-port path of a multi-core deployment is exercised too.
        proxy = await(BareProxy.start(vertx, 0, upstream.port(), 2));
        client = vertx.createHttpClient();
    }

    @AfterAll
    static void stop() throws Exception {
        await(vertx.close());
    }

    private static Answer post(int port, String body) throws Exception {
        RequestOptions o = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
                .setURI(FakeUpstream.PATH).putHeader("content-type", "application/json");
        // The body is asked for in the same step as the response: this test's thread is not the client's event
        // loop, and a response whose end has arrived before its body handler is set would never complete.
        return await(client.request(o).compose(req -> req.send(Buffer.buffer(body))
                .compose(resp -> resp.body().map(b -> new Answer(resp.statusCode(), resp.getHeader("content-type"), b)))));
    }

    @Test
    void aWholeJsonAnswerPassesThroughUnchanged() throws Exception {
        String body = LoadGenerator.requestBody(false, 0);

        Answer direct = post(upstream.port(), body);
        Answer proxied = post(proxy.port(), body);

        // Were they one port, the proxy would be compared with itself.
        assertThat(proxy.port()).isNotEqualTo(upstream.port());
        assertThat(proxied.status()).isEqualTo(200);
        assertThat(proxied.contentType()).isEqualTo("application/json");
        assertThat(proxied.body().getBytes()).isEqualTo(direct.body().getBytes())
                .isEqualTo(Buffer.buffer(FakeUpstream.COMPLETION).getBytes());
    }

    @Test
    void anSseStreamPassesThroughUnchanged() throws Exception {
        String body = LoadGenerator.requestBody(true, 0);

        Answer proxied = post(proxy.port(), body);

        assertThat(proxied.status()).isEqualTo(200);
        assertThat(proxied.contentType()).isEqualTo("text/event-stream");
        assertThat(proxied.body().getBytes()).isEqualTo(Buffer.buffer(String.join("", FakeUpstream.STREAM)).getBytes());
    }

    @Test
    void theUpstreamsStatusPassesThroughToo() throws Exception {
        RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(proxy.port())
                .setURI("/nowhere");

        int status = await(client.request(o).compose(req -> req.send().compose(resp -> resp.body().map(b -> resp.statusCode()))));

        assertThat(status).isEqualTo(404);
    }

    @Test
    void hopByHopHeadersAndThoseTheConnectionHeaderNamesStayBehind() {
        MultiMap h = MultiMap.caseInsensitiveMultiMap().add("Connection", "keep-alive, X-Per-Hop");
        List<String> tokens = BareProxy.connectionTokens(h);

        assertThat(tokens).containsExactly("keep-alive", "X-Per-Hop");
        assertThat(BareProxy.forwarded("Transfer-Encoding", tokens)).isFalse();
        assertThat(BareProxy.forwarded("connection", tokens)).isFalse();
        assertThat(BareProxy.forwarded("x-per-hop", tokens)).isFalse();
        assertThat(BareProxy.forwarded("Authorization", tokens)).isTrue();
        assertThat(BareProxy.forwarded("content-length", List.of())).isTrue();
    }

    @Test
    void theHarnessMeasuresTheBareProxyByDefault() {
        // observed (ledger and metrics on) runs beside sluice by default: the cost of both, measured in one run.
        assertThat(HarnessOptions.defaults().targets()).containsExactly("direct", "nginx", "bare", "sluice", "observed");
        assertThat(HarnessOptions.parse(new String[] {"--sluice-jvm-args", "-Xmx1g -XX:+UseParallelGC"}).childJvmArgs())
                .endsWith("-Xmx1g", "-XX:+UseParallelGC");
    }

    @Test
    void childJvmsGetTheLaunchersFlagsFirst() {
        List<String> args = HarnessOptions.parse(new String[] {"--sluice-jvm-args", "-Xmx1g"}).childJvmArgs();
        List<String> launcher = LauncherFlags.forServe(); // run from bin/lib/jdk.sh, their one place
        assertThat(args.subList(0, launcher.size())).isEqualTo(launcher);
        assertThat(args.getLast()).isEqualTo("-Xmx1g");
        if (Runtime.version().feature() >= 23) {
            assertThat(launcher).contains("--sun-misc-unsafe-memory-access=allow");
        }
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
