package dev.sluice.bench.load;

import dev.sluice.gateway.config.ServerSettings;
import dev.sluice.gateway.front.ClientRequest;
import dev.sluice.gateway.front.ClientResponse;
import dev.sluice.gateway.front.FrontServer;
import dev.sluice.gateway.upstream.Origin;
import dev.sluice.gateway.upstream.ResponseListener;
import dev.sluice.gateway.upstream.UpstreamCallHandle;
import dev.sluice.gateway.upstream.UpstreamClient;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A reverse proxy on the same HTTP stack as Sluice (its {@link FrontServer} in front, its
 * {@link UpstreamClient} behind, the same event loop layout and upstream pool) and nothing else:
 * no authentication, no JSON, no quotas. What it costs is the floor for any proxy built on this
 * stack, so that a report can tell how much of Sluice's cost is the stack and how much is Sluice.
 *
 * <p>Every request is read whole, as Sluice reads it, and goes to the one upstream with its
 * method, URI and end-to-end headers; the answer's status, headers and body come back streamed
 * with back-pressure, so whole JSON answers and SSE streams pass alike.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.sluice.bench.load.BareProxy --port P --upstream-port U</pre>
 */
public final class BareProxy {

    /** Upstream connections per event loop: Sluice's own pool size, so that neither is short of connections. */
    static final int UPSTREAM_POOL_SIZE = 512;

    /** Connect and idle timeout of upstream calls: what the harness's Sluice configuration sets (upstream_timeout). */
    static final int UPSTREAM_TIMEOUT_MILLIS = 30_000;

    /**
     * Headers that describe one connection rather than the message (RFC 9110, section 7.6.1), and
     * so are never forwarded. Host is dropped as well: the client sets it to the upstream's authority,
     * as nginx's default {@code proxy_set_header Host $proxy_host} does.
     */
    private static final List<String> NOT_FORWARDED = List.of("connection", "keep-alive", "proxy-connection",
            "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade");

    private final FrontServer front;
    private final List<UpstreamClient> clients;

    private BareProxy(FrontServer front, List<UpstreamClient> clients) {
        this.front = front;
        this.clients = List.copyOf(clients);
    }

    /** Event loops Sluice serves on by default ({@code Gateway.Builder}: processors, at most 4); the proxy uses as many. */
    public static int defaultInstances() {
        return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    }

    /** Serves {@code --port P --upstream-port U} on 127.0.0.1 until SIGTERM. */
    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !"--port".equals(args[0]) || !"--upstream-port".equals(args[2])) {
            System.err.println("usage: BareProxy --port P --upstream-port U");
            System.exit(2);
        }
        int port = Integer.parseInt(args[1]);
        int upstreamPort = Integer.parseInt(args[3]);
        // Default options, like the Vert.x instance Gateway.Builder makes when given none.
        Vertx vertx = Vertx.vertx();
        BareProxy p = start(vertx, port, upstreamPort, defaultInstances()).toCompletionStage().toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
        System.out.println("Bare proxy listening on 127.0.0.1:" + p.port() + " with " + defaultInstances()
                + " event loop(s), forwarding to 127.0.0.1:" + upstreamPort);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                // Ending anyway.
            }
            stopped.countDown();
        }, "bare-proxy-shutdown"));
        stopped.await();
    }

    /**
     * Starts one listener on 127.0.0.1:{@code port} (0 for a free port) serving on {@code instances}
     * event loops, each with its own upstream client, in front of 127.0.0.1:{@code upstreamPort}:
     * the layout {@code Gateway} uses.
     */
    public static Future<BareProxy> start(Vertx vertx, int port, int upstreamPort, int instances) {
        if (instances < 1) {
            throw new IllegalArgumentException("instances: " + instances + " (expected: >= 1)");
        }
        Origin upstream = new Origin("127.0.0.1", upstreamPort, false);
        // The settings Sluice's gateway uses, so that the stack is configured alike.
        Duration timeout = Duration.ofMillis(UPSTREAM_TIMEOUT_MILLIS);
        UpstreamClient.Settings settings = new UpstreamClient.Settings(UPSTREAM_POOL_SIZE, timeout, timeout,
                Duration.ofSeconds(60));
        List<UpstreamClient> clients = new ArrayList<>();
        List<FrontServer.Loop> loops = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            ContextInternal context = ((VertxInternal) vertx).createEventLoopContext();
            UpstreamClient client = UpstreamClient.create(context, settings);
            clients.add(client);
            loops.add(new FrontServer.Loop(context, in -> forward(in, client, upstream)));
        }
        return FrontServer.listen(vertx, "127.0.0.1", port, ServerSettings.DEFAULT_MAX_HEADER_BYTES, loops)
                .map(f -> new BareProxy(f, clients));
    }

    /** The port it listens on. */
    public int port() {
        return front.port();
    }

    /** Stops listening and closes the upstream connections; the Vert.x instance stays open. */
    public Future<Void> close() {
        Future<Void> all = front.shutdown(Duration.ofSeconds(1));
        for (UpstreamClient c : clients) {
            all = all.compose(v -> c.close());
        }
        return all;
    }

    /** Whether a header is end-to-end and may go on to the other side. */
    static boolean forwarded(String name, List<String> connectionTokens) {
        for (String h : NOT_FORWARDED) {
            if (h.equalsIgnoreCase(name)) {
                return false;
            }
        }
        for (String t : connectionTokens) {
            if (t.equalsIgnoreCase(name)) {
                return false;
            }
        }
        return true;
    }

    /** The header names a Connection header lists: also hop-by-hop. Almost always none. */
    static List<String> connectionTokens(HttpHeaders headers) {
        List<String> values = headers.getAll("connection");
        if (values.isEmpty()) {
            return List.of();
        }
        List<String> tokens = new ArrayList<>();
        for (String v : values) {
            for (String t : v.split(",")) {
                if (!t.isBlank()) {
                    tokens.add(t.strip());
                }
            }
        }
        return tokens;
    }

    /** End-to-end headers from one side onto the other; Host is the upstream client's to set. */
    private static void copyHeaders(HttpHeaders from, HttpHeaders to) {
        List<String> tokens = connectionTokens(from);
        for (Map.Entry<String, String> e : from) {
            String name = e.getKey();
            if (forwarded(name, tokens) && !name.equalsIgnoreCase("host")) {
                to.add(name, e.getValue());
            }
        }
    }

    /** Reads the request whole, as Sluice does, and sends it on. */
    private static void forward(ClientRequest in, UpstreamClient client, Origin upstream) {
        ClientResponse out = in.response();
        if (in.malformed().isPresent()) {
            out.setStatusCode(in.malformed().get().status()).end();
            return;
        }
        String length = in.header("content-length");
        ByteBuf body = Unpooled.buffer(length != null ? Math.max(0, Integer.parseInt(length.strip())) : 256);
        in.bodyHandler(body::writeBytes);
        in.endHandler(v -> {
            String uri = in.path() + in.query().map(q -> "?" + q).orElse("");
            FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, in.method(), uri, body);
            copyHeaders(in.headers(), req.headers());
            if (in.headers().contains("content-length") || in.headers().contains("transfer-encoding")) {
                // The client's chunking was hop-by-hop; the upstream gets the whole body's length.
                req.headers().setInt("content-length", body.readableBytes());
            }
            Relay relay = new Relay(in, out);
            relay.call = client.send(upstream, req, relay);
            out.closeHandler(x -> relay.call.cancel());
        });
    }

    /**
     * The upstream's answer to the client: an answer of known length whole, as Sluice answers JSON;
     * a stream as it comes, the upstream paused while the client is behind.
     */
    private static final class Relay implements ResponseListener {
        private final ClientRequest in;
        private final ClientResponse out;
        UpstreamCallHandle call;
        private Buffer whole;
        private boolean wrote;

        Relay(ClientRequest in, ClientResponse out) {
            this.in = in;
            this.out = out;
        }

        @Override
        public void onHead(int status, HttpHeaders headers) {
            out.setStatusCode(status);
            copyHeaders(headers, out.headers());
            boolean bodyless = HttpMethod.HEAD.equals(in.method()) || status == 204 || status == 304 || status < 200;
            if (bodyless || headers.contains("content-length")) {
                out.headers().remove("content-length");
                whole = Buffer.buffer();
            } else {
                // A stream of unknown length (SSE): the upstream's chunking was hop-by-hop, the client gets its own.
                out.setChunked(true);
            }
        }

        @Override
        public void onContent(Buffer chunk) {
            if (whole != null) {
                whole.appendBuffer(chunk);
                return;
            }
            wrote = true;
            out.write(chunk);
            if (out.writeQueueFull()) {
                call.pause();
                out.drainHandler(v -> call.resume());
            }
        }

        @Override
        public void onEnd() {
            out.end(whole != null ? whole : Buffer.buffer(0));
        }

        @Override
        public void onFailure(Throwable cause) {
            if (wrote) {
                out.reset(); // a broken stream must not look complete to the client
            } else {
                out.setStatusCode(502).end();
            }
        }
    }

    /**
     * The proxy in a child JVM, the way the harness runs it: its own process, so that its CPU time
     * can be read apart from the harness's, started with the same JVM arguments as a child Sluice.
     */
    public static final class Child implements AutoCloseable {
        private final Process process;
        private final Path dir;
        private final int port;

        private Child(Process process, Path dir, int port) {
            this.process = process;
            this.dir = dir;
            this.port = port;
        }

        /** Starts a child JVM with {@code jvmArgs} in front of 127.0.0.1:{@code upstreamPort} and waits until it listens. */
        public static Child start(List<String> jvmArgs, int upstreamPort) throws IOException, InterruptedException {
            Path dir = Files.createTempDirectory("sluice-bench-bare");
            int port = Ports.free();
            List<String> cmd = new ArrayList<>();
            cmd.add(ProcessHandle.current().info().command().orElse("java"));
            cmd.addAll(jvmArgs);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), BareProxy.class.getName(),
                    "--port", Integer.toString(port), "--upstream-port", Integer.toString(upstreamPort)));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("bare.log").toFile())
                    .start();
            try {
                Ports.awaitListening(port, Duration.ofSeconds(90), p);
            } catch (IOException e) {
                Ports.stop(p);
                throw new IOException(e.getMessage() + "; see " + dir.resolve("bare.log"), e);
            }
            return new Child(p, dir, port);
        }

        public int port() {
            return port;
        }

        /** CPU time of the child process, read like a child Sluice's. */
        Optional<CpuMeter> cpu() {
            return Optional.of(CpuMeter.of(process.toHandle()));
        }

        /** The directory holding its log. */
        public Path directory() {
            return dir;
        }

        /** Stops the child (TERM, then KILL after 5 s). */
        @Override
        public void close() {
            Ports.stop(process);
        }
    }
}
