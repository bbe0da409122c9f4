package dev.sluice.gateway.front;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.VertxInternal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The listener's HTTP/1.1 rules: keep-alive, pipelining, closing, streaming, malformed requests, back-pressure, shutdown. */
class FrontServerTest {

    private Vertx vertx;
    private Context context;
    private FrontServer server;
    /** What the test's "application" does with each request. */
    private volatile Handler<ClientRequest> app = FrontServerTest::echo;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        context = ((VertxInternal) vertx).createEventLoopContext();
        server = await(FrontServer.listen(vertx, "127.0.0.1", 0, 2048,
                List.of(new FrontServer.Loop(context, r -> app.handle(r)))));
    }

    @AfterEach
    void stop() throws Exception {
        await(vertx.close());
    }

    /** Answers with the request's path and body once the body is in. */
    static void echo(ClientRequest r) {
        StringBuilder body = new StringBuilder();
        r.bodyHandler(b -> body.append(b.toString(StandardCharsets.UTF_8)));
        r.endHandler(v -> r.response().putHeader("content-type", "text/plain")
                .end(Buffer.buffer(r.path() + " " + body)));
    }

    @Test
    void aKeptAliveConnectionCarriesOneRequestAfterAnother() throws Exception {
        try (Socket s = connect()) {
            send(s, post("/a", "one"));
            assertThat(readResponse(s.getInputStream())).startsWith("HTTP/1.1 200 OK").endsWith("/a one");
            send(s, post("/b", "two"));
            assertThat(readResponse(s.getInputStream())).startsWith("HTTP/1.1 200 OK").endsWith("/b two");
        }
    }

    @Test
    void pipelinedRequestsAreServedOneAtATimeAndAnsweredInOrder() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        app = r -> {
            mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            r.endHandler(v -> vertx.setTimer(20, t -> {
                inFlight.decrementAndGet();
                r.response().end(Buffer.buffer(r.path()));
            }));
        };
        try (Socket s = connect()) {
            send(s, post("/first", "") + post("/second", "x") + post("/third", ""));
            InputStream in = s.getInputStream();
            assertThat(readResponse(in)).endsWith("/first");
            assertThat(readResponse(in)).endsWith("/second");
            assertThat(readResponse(in)).endsWith("/third");
        }
        assertThat(mostAtOnce.get()).isEqualTo(1);
    }

    @Test
    void connectionCloseIsHonouredAfterTheAnswer() throws Exception {
        try (Socket s = connect()) {
            send(s, "POST /bye HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
            String all = readAll(s.getInputStream());
            assertThat(all).containsIgnoringCase("connection: close").endsWith("/bye ");
        }
    }

    @Test
    void aStreamedAnswerIsChunked() throws Exception {
        app = r -> r.endHandler(v -> {
            ClientResponse resp = r.response().setChunked(true);
            resp.write(Buffer.buffer("data: 1\n\n"));
            resp.write(Buffer.buffer("data: 2\n\n"));
            resp.end();
        });
        try (Socket s = connect()) {
            send(s, "POST /s HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
            String all = readAll(s.getInputStream());
            assertThat(all).containsIgnoringCase("transfer-encoding: chunked")
                    .contains("9\r\ndata: 1\n\n\r\n9\r\ndata: 2\n\n\r\n0\r\n\r\n");
        }
    }

    @Test
    void anHttp10ClientGetsItsStreamUnchunkedUntilTheConnectionCloses() throws Exception {
        app = r -> r.endHandler(v -> {
            ClientResponse resp = r.response().setChunked(true);
            resp.write(Buffer.buffer("data: 1\n\n"));
            resp.end(Buffer.buffer("data: 2\n\n"));
        });
        try (Socket s = connect()) {
            send(s, "POST /s HTTP/1.0\r\ncontent-length: 0\r\n\r\n");
            String all = readAll(s.getInputStream());
            assertThat(all).doesNotContainIgnoringCase("transfer-encoding").endsWith("\r\n\r\ndata: 1\n\ndata: 2\n\n");
        }
    }

    @Test
    void aChunkedRequestBodyArrivesWhole() throws Exception {
        try (Socket s = connect()) {
            send(s, "POST /c HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
            assertThat(readResponse(s.getInputStream())).endsWith("/c abcde");
        }
    }

    @Test
    void aClientExpectingContinueIsToldToSendItsBody() throws Exception {
        try (Socket s = connect()) {
            send(s, "POST /e HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\ncontent-length: 4\r\n\r\n");
            assertThat(readUntil(s.getInputStream(), "\r\n\r\n")).startsWith("HTTP/1.1 100 Continue");
            send(s, "body");
            assertThat(readResponse(s.getInputStream())).endsWith("/e body");
        }
    }

    @Test
    void oversizedHeadersAreHandedOverAsMalformed431AndTheConnectionCloses() throws Exception {
        CompletableFuture<ClientRequest.Malformed> seen = new CompletableFuture<>();
        app = r -> {
            r.malformed().ifPresent(seen::complete);
            r.response().setStatusCode(r.malformed().map(ClientRequest.Malformed::status).orElse(200)).end(Buffer.buffer("no"));
        };
        try (Socket s = connect()) {
            send(s, "POST /h HTTP/1.1\r\nhost: x\r\nx-padding: " + "p".repeat(4000) + "\r\ncontent-length: 0\r\n\r\n");
            assertThat(readAll(s.getInputStream())).startsWith("HTTP/1.1 431 ").containsIgnoringCase("connection: close");
        }
        assertThat(seen.get(5, TimeUnit.SECONDS).code()).isEqualTo("headers_too_large");
    }

    @Test
    void aRequestLineTooLongIs414AndGarbageIs400() throws Exception {
        app = r -> r.response().setStatusCode(r.malformed().map(ClientRequest.Malformed::status).orElse(200)).end();
        try (Socket s = connect()) {
            send(s, "GET /" + "a".repeat(FrontServer.MAX_INITIAL_LINE_BYTES + 10) + " HTTP/1.1\r\n\r\n");
            assertThat(readAll(s.getInputStream())).startsWith("HTTP/1.1 414 ");
        }
        try (Socket s = connect()) {
            send(s, "\u0001\u0002 not http at all\r\n\r\n");
            assertThat(readAll(s.getInputStream())).startsWith("HTTP/1.1 400 ");
        }
    }

    @Test
    void queryParametersAreDecodedAndThePathExcludesThem() throws Exception {
        CompletableFuture<String> seen = new CompletableFuture<>();
        app = r -> {
            seen.complete(r.path() + "|" + r.query().orElse("") + "|" + r.param("key").orElse("-"));
            r.response().end();
        };
        try (Socket s = connect()) {
            send(s, "GET /v1beta/models/m:countTokens?alt=sse&key=a%2Bb HTTP/1.1\r\nhost: x\r\n\r\n");
            readResponse(s.getInputStream());
        }
        assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo("/v1beta/models/m:countTokens|alt=sse&key=a%2Bb|a+b");
    }

    @Test
    void aClientThatGoesAwayMidAnswerIsReported() throws Exception {
        CompletableFuture<Void> gone = new CompletableFuture<>();
        CompletableFuture<Void> streaming = new CompletableFuture<>();
        app = r -> r.endHandler(v -> {
            r.response().closeHandler(x -> gone.complete(null));
            r.response().setChunked(true).write(Buffer.buffer("data: 1\n\n"));
            streaming.complete(null);
        });
        try (Socket s = connect()) {
            send(s, post("/g", ""));
            streaming.get(5, TimeUnit.SECONDS);
        }
        gone.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aClientThatStopsReadingFillsTheWriteQueueAndDrainsWhenItReadsAgain() throws Exception {
        CompletableFuture<Void> full = new CompletableFuture<>();
        CompletableFuture<Void> drained = new CompletableFuture<>();
        Buffer piece = Buffer.buffer(new byte[64 * 1024]);
        app = r -> r.endHandler(v -> {
            ClientResponse resp = r.response().setChunked(true);
            int written = 0;
            while (!resp.writeQueueFull() && written++ < 10_000) {
                resp.write(piece);
            }
            resp.drainHandler(x -> {
                drained.complete(null);
                resp.end();
            });
            full.complete(null);
        });
        try (Socket s = connect()) {
            send(s, "POST /p HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
            full.get(5, TimeUnit.SECONDS);
            assertThat(drained).isNotDone();
            readAll(s.getInputStream());
        }
        drained.get(5, TimeUnit.SECONDS);
    }

    @Test
    void shutdownClosesIdleConnectionsAndLetsAnAnswerInFlightFinish() throws Exception {
        CompletableFuture<ClientResponse> held = new CompletableFuture<>();
        app = r -> {
            if (r.path().equals("/slow")) {
                r.endHandler(v -> held.complete(r.response()));
            } else {
                echo(r);
            }
        };
        try (Socket idle = connect(); Socket busy = connect()) {
            send(idle, "GET /quick HTTP/1.1\r\nhost: x\r\n\r\n");
            send(busy, post("/slow", ""));
            ClientResponse answer = held.get(5, TimeUnit.SECONDS);
            Future<Void> stopped = server.shutdown(Duration.ofSeconds(30));
            assertThat(readAll(idle.getInputStream())).startsWith("HTTP/1.1 200");
            assertThat(stopped.isComplete()).isFalse();
            context.runOnContext(v -> answer.end(Buffer.buffer("late")));
            String last = readAll(busy.getInputStream());
            assertThat(last).endsWith("late").containsIgnoringCase("connection: close");
            await(stopped);
        }
    }

    @Test
    void shutdownClosesWhatIsStillInFlightAfterTheGrace() throws Exception {
        app = r -> { }; // never answers
        try (Socket s = connect()) {
            send(s, post("/never", ""));
            readNothingFor(s, 200);
            await(server.shutdown(Duration.ofMillis(100)));
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    // --- a raw HTTP/1.1 client -------------------------------------------------------------------

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(10_000);
        return s;
    }

    private static String post(String path, String body) {
        return "POST " + path + " HTTP/1.1\r\nhost: x\r\ncontent-length: " + body.length() + "\r\n\r\n" + body;
    }

    private static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** One response with a content-length: head and body. */
    private static String readResponse(InputStream in) throws IOException {
        String head = readUntil(in, "\r\n\r\n");
        int length = 0;
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        return head + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
    }

    private static String readUntil(InputStream in, String marker) throws IOException {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        while (!seen.toString(StandardCharsets.ISO_8859_1).endsWith(marker)) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            seen.write(b);
        }
        return seen.toString(StandardCharsets.ISO_8859_1);
    }

    /** Everything until the server closes the connection. */
    private static String readAll(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    private static void readNothingFor(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        s.setSoTimeout(10_000);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
