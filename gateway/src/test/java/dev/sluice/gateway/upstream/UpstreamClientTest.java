package dev.sluice.gateway.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.PfxOptions;
import java.io.FileInputStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The upstream client's rules: pooling, waiting, timeouts, broken answers, cancelling and TLS. */
class UpstreamClientTest {

    private static final Duration LONG = Duration.ofSeconds(30);

    private Vertx vertx;
    private Context context;
    /** Remote ports of the connections the fake upstream accepted. */
    private final Set<Integer> connections = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        context = vertx.getOrCreateContext();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** What one call told its listener. */
    record Outcome(int status, HttpHeaders headers, String body, Throwable failure) {}

    private static final class Recorder implements ResponseListener {
        final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        final List<String> chunks = new ArrayList<>();
        final CompletableFuture<Void> firstChunk = new CompletableFuture<>();
        private int status;
        private HttpHeaders headers;
        private final StringBuilder body = new StringBuilder();

        @Override
        public void onHead(int status, HttpHeaders headers) {
            this.status = status;
            this.headers = headers;
        }

        @Override
        public void onContent(Buffer chunk) {
            chunks.add(chunk.toString());
            body.append(chunk.toString(StandardCharsets.UTF_8));
            firstChunk.complete(null);
        }

        @Override
        public void onEnd() {
            outcome.complete(new Outcome(status, headers, body.toString(), null));
        }

        @Override
        public void onFailure(Throwable cause) {
            outcome.complete(new Outcome(status, headers, body.toString(), cause));
        }
    }

    private UpstreamClient client(int maxConnections, Duration idleTimeout) throws Exception {
        return onContext(() -> UpstreamClient.create(context,
                new UpstreamClient.Settings(maxConnections, Duration.ofSeconds(5), idleTimeout, Duration.ofSeconds(60))));
    }

    private <T> T onContext(java.util.concurrent.Callable<T> task) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        context.runOnContext(v -> {
            try {
                f.complete(task.call());
            } catch (Exception e) {
                f.completeExceptionally(e);
            }
        });
        return f.get(10, TimeUnit.SECONDS);
    }

    private static FullHttpRequest post(String uri, String body) {
        FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri,
                Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
        r.headers().set("content-type", "application/json").setInt("content-length", body.length());
        return r;
    }

    private Recorder send(UpstreamClient c, Origin o, String body) throws Exception {
        Recorder r = new Recorder();
        onContext(() -> c.send(o, post("/v1/echo", body), r));
        return r;
    }

    private static Outcome outcome(Recorder r) throws Exception {
        return r.outcome.get(LONG.toSeconds(), TimeUnit.SECONDS);
    }

    private int upstream(Consumer<HttpServerRequest> handler) throws Exception {
        HttpServer s = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
                .connectionHandler(conn -> connections.add(conn.remoteAddress().port()))
                .requestHandler(handler::accept);
        return await(s.listen()).actualPort();
    }

    private static Consumer<HttpServerRequest> echo() {
        return req -> req.body().onSuccess(b -> req.response().putHeader("x-host", req.headers().get("host"))
                .end("echo:" + b.toString()));
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(LONG.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aCallCarriesItsBodyAndTheOriginsAuthorityAndHearsTheWholeAnswer() throws Exception {
        int port = upstream(echo());
        Outcome o = outcome(send(client(4, LONG), new Origin("127.0.0.1", port, false), "{\"a\":1}"));
        assertThat(o.failure()).isNull();
        assertThat(o.status()).isEqualTo(200);
        assertThat(o.body()).isEqualTo("echo:{\"a\":1}");
        assertThat(o.headers().get("x-host")).isEqualTo("127.0.0.1:" + port);
    }

    @Test
    void theAuthorityLeavesOutTheDefaultPortAndBracketsAnIpv6Literal() {
        assertThat(new Origin("api.openai.com", 443, true).authority()).isEqualTo("api.openai.com");
        assertThat(new Origin("localhost", 80, false).authority()).isEqualTo("localhost");
        assertThat(new Origin("localhost", 443, false).authority()).isEqualTo("localhost:443");
        assertThat(new Origin("::1", 8080, false).authority()).isEqualTo("[::1]:8080");
    }

    @Test
    void callsOneAfterAnotherShareOneConnection() throws Exception {
        int port = upstream(echo());
        UpstreamClient c = client(4, LONG);
        Origin o = new Origin("127.0.0.1", port, false);
        for (int i = 0; i < 5; i++) {
            assertThat(outcome(send(c, o, "n" + i)).body()).isEqualTo("echo:n" + i);
        }
        assertThat(connections).hasSize(1);
    }

    @Test
    void aCallBeyondTheConnectionLimitWaitsForAFreeConnection() throws Exception {
        CompletableFuture<HttpServerRequest> held = new CompletableFuture<>();
        int port = upstream(req -> {
            if (held.complete(req)) {
                return; // the first call is answered only when the test says so
            }
            echo().accept(req);
        });
        UpstreamClient c = client(1, LONG);
        Origin o = new Origin("127.0.0.1", port, false);
        Recorder first = send(c, o, "first");
        Recorder second = send(c, o, "second");
        HttpServerRequest req = held.get(10, TimeUnit.SECONDS);
        assertThat(second.outcome).isNotDone();
        req.response().end("late");
        assertThat(outcome(first).body()).isEqualTo("late");
        assertThat(outcome(second).body()).isEqualTo("echo:second");
        assertThat(connections).hasSize(1);
    }

    @Test
    void aProviderThatSendsNothingFailsTheCallWithATimeout() throws Exception {
        int port = upstream(req -> { });
        Outcome o = outcome(send(client(4, Duration.ofMillis(200)), new Origin("127.0.0.1", port, false), "{}"));
        assertThat(o.failure()).isInstanceOf(TimeoutException.class);
    }

    /** A provider that closes a kept-alive connection when a request arrives on it, unanswered, as an idle close does. */
    private Consumer<HttpServerRequest> closingReusedConnections(java.util.concurrent.atomic.AtomicInteger requests,
            boolean alsoFreshOnesAfterTheFirst) {
        java.util.Map<io.vertx.core.http.HttpConnection, Integer> seen = new ConcurrentHashMap<>();
        Consumer<HttpServerRequest> echo = echo();
        return req -> {
            int n = requests.incrementAndGet();
            int onThisConnection = seen.merge(req.connection(), 1, Integer::sum);
            if (onThisConnection > 1 || (alsoFreshOnesAfterTheFirst && n > 1)) {
                req.connection().close();
            } else {
                echo.accept(req);
            }
        };
    }

    @Test
    void aCallWrittenToAConnectionTheProviderHadJustClosedIsSentAgainOnAnother() throws Exception {
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        int port = upstream(closingReusedConnections(requests, false));
        UpstreamClient c = client(4, LONG);
        Origin o = new Origin("127.0.0.1", port, false);
        assertThat(outcome(send(c, o, "{\"n\":1}")).body()).isEqualTo("echo:{\"n\":1}");

        Outcome second = outcome(send(c, o, "{\"n\":2}"));

        assertThat(second.failure()).isNull();
        assertThat(second.body()).isEqualTo("echo:{\"n\":2}");
        assertThat(requests.get()).isEqualTo(3);
        assertThat(connections).hasSize(2);
    }

    @Test
    void aCallThatFailsOnANewConnectionIsNotSentAgain() throws Exception {
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        int port = upstream(closingReusedConnections(requests, true));
        UpstreamClient c = client(4, LONG);
        Origin o = new Origin("127.0.0.1", port, false);
        assertThat(outcome(send(c, o, "{}")).failure()).isNull();

        Outcome second = outcome(send(c, o, "{}"));

        assertThat(second.failure()).isNotNull();
        assertThat(requests.get()).isEqualTo(3);
    }

    @Test
    void aCallMeetingSeveralStaleConnectionsGoesOutOnANewOne() throws Exception {
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        Consumer<HttpServerRequest> closing = closingReusedConnections(requests, false);
        // The first two answers are held a moment, so that the two calls open two connections.
        int port = upstream(req -> {
            req.pause();
            vertx.setTimer(requests.get() < 2 ? 100 : 1, id -> {
                closing.accept(req);
                req.resume();
            });
        });
        UpstreamClient c = client(4, LONG);
        Origin o = new Origin("127.0.0.1", port, false);
        Recorder first = send(c, o, "{}");
        Recorder second = send(c, o, "{}");
        assertThat(outcome(first).failure()).isNull();
        assertThat(outcome(second).failure()).isNull();

        Outcome third = outcome(send(c, o, "{\"n\":3}"));

        assertThat(third.failure()).isNull();
        assertThat(third.body()).isEqualTo("echo:{\"n\":3}");
        assertThat(requests.get()).isEqualTo(5);
        assertThat(connections).hasSize(3);
    }

    @Test
    void aConnectionClosedMidAnswerFailsTheCall() throws Exception {
        int port = upstream(req -> req.response().setChunked(true).write("data: part\n\n")
                .onSuccess(v -> req.connection().close()));
        Recorder r = send(client(4, LONG), new Origin("127.0.0.1", port, false), "{}");
        Outcome o = outcome(r);
        assertThat(o.status()).isEqualTo(200);
        assertThat(o.body()).isEqualTo("data: part\n\n");
        assertThat(o.failure()).isNotNull();
    }

    @Test
    void anAnswerThatIsNotHttpFailsTheCall() throws Exception {
        NetServer garbage = vertx.createNetServer().connectHandler(s -> s.handler(b -> s.write("hello, not http\r\n\r\n")));
        int port = await(garbage.listen(0, "127.0.0.1")).actualPort();
        Outcome o = outcome(send(client(4, LONG), new Origin("127.0.0.1", port, false), "{}"));
        assertThat(o.failure()).isInstanceOf(UpstreamProtocolException.class);
    }

    @Test
    void aRefusedConnectionFailsTheCallAndFreesItsPlace() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        UpstreamClient c = client(1, LONG);
        Origin nowhere = new Origin("127.0.0.1", closedPort, false);
        for (int i = 0; i < 3; i++) {
            Recorder r = send(c, nowhere, "{}");
            // With one connection allowed, a place not freed would leave the next call waiting for ever.
            assertThat(outcome(r).failure()).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void aCancelledCallHearsNothingMoreAndItsConnectionIsClosed() throws Exception {
        CompletableFuture<Void> upstreamSawClose = new CompletableFuture<>();
        int port = upstream(req -> {
            req.connection().closeHandler(v -> upstreamSawClose.complete(null));
            req.response().setChunked(true).write("data: one\n\n"); // and never ends
        });
        UpstreamClient c = client(4, LONG);
        Recorder r = new Recorder();
        UpstreamCallHandle h = onContext(() -> c.send(new Origin("127.0.0.1", port, false), post("/v1/echo", "{}"), r));
        r.firstChunk.get(10, TimeUnit.SECONDS);
        assertThat(h.sent()).isTrue();
        onContext(() -> {
            h.cancel();
            return null;
        });
        upstreamSawClose.get(10, TimeUnit.SECONDS);
        assertThat(onContext(() -> r.outcome.isDone())).isFalse();
    }

    @Test
    void aCallNeverHandedToAConnectionIsNotSent() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Recorder r = new Recorder();
        UpstreamClient c = client(1, LONG);
        UpstreamCallHandle h = onContext(() -> c.send(new Origin("127.0.0.1", closedPort, false), post("/", "{}"), r));
        outcome(r);
        assertThat(h.sent()).isFalse();
    }

    @Test
    void providersAreReachedOverTlsWithTheirNameVerified(@TempDir Path dir) throws Exception {
        Path store = keyStore(dir, "localhost", "dns:localhost,ip:127.0.0.1");
        int port = tlsUpstream(store);
        UpstreamClient c = clientTrusting(store);
        Outcome o = outcome(send(c, new Origin("localhost", port, true), "{\"tls\":true}"));
        assertThat(o.failure()).isNull();
        assertThat(o.body()).isEqualTo("echo:{\"tls\":true}");
    }

    @Test
    void aCertificateForAnotherNameIsRefused(@TempDir Path dir) throws Exception {
        Path store = keyStore(dir, "elsewhere.example", "dns:elsewhere.example");
        int port = tlsUpstream(store);
        UpstreamClient c = clientTrusting(store);
        Recorder r = new Recorder();
        UpstreamCallHandle h = onContext(() -> c.send(new Origin("localhost", port, true), post("/", "{}"), r));
        Outcome o = outcome(r);
        assertThat(o.failure()).hasRootCauseInstanceOf(java.security.cert.CertificateException.class);
        assertThat(h.sent()).as("nothing reached the provider").isFalse();
    }

    /** A client whose only trusted authority is the certificate in {@code store}. */
    private UpstreamClient clientTrusting(Path store) throws Exception {
        SslContext tls = trusting(store);
        return onContext(() -> UpstreamClient.create(context,
                new UpstreamClient.Settings(4, Duration.ofSeconds(5), LONG, Duration.ofSeconds(60)), tls));
    }

    private int tlsUpstream(Path store) throws Exception {
        HttpServer s = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
                .setKeyCertOptions(new PfxOptions().setPath(store.toString()).setPassword("changeit")))
                .requestHandler(echo()::accept);
        return await(s.listen()).actualPort();
    }

    /** A PKCS#12 store with one self-signed key pair for {@code cn}, made by the JDK's keytool. */
    private static Path keyStore(Path dir, String cn, String san) throws Exception {
        Path store = dir.resolve("upstream.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "upstream", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=" + cn, "-ext", "SAN=" + san, "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(Files.exists(store)).isTrue();
        return store;
    }

    private static SslContext trusting(Path store) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(store.toFile())) {
            ks.load(in, "changeit".toCharArray());
        }
        try {
            return SslContextBuilder.forClient().trustManager((X509Certificate) ks.getCertificate("upstream")).build();
        } catch (SSLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aClosedClientRefusesNewCallsAfterSendHasReturned() throws Exception {
        int port = upstream(echo());
        UpstreamClient c = client(4, LONG);
        await(c.close());
        Recorder r = new Recorder();
        // Told in a later turn, so that the sender already holds the call's handle when it hears.
        boolean toldWithinSend = onContext(() -> {
            c.send(new Origin("127.0.0.1", port, false), post("/", "{}"), r);
            return r.outcome.isDone();
        });
        assertThat(toldWithinSend).isFalse();
        assertThat(outcome(r).failure()).isInstanceOf(IllegalStateException.class);
    }
}
