package dev.sluice.bench.load;

import dev.sluice.gateway.upstream.Origin;
import dev.sluice.gateway.upstream.ResponseListener;
import dev.sluice.gateway.upstream.UpstreamCallHandle;
import dev.sluice.gateway.upstream.UpstreamClient;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reverse proxy on the same HTTP stack as Sluice (a Vert.x 5 HttpServer in front, Sluice's
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

    /** Negative ports already handed out in this JVM; see {@link #start}. */
    private static final AtomicInteger SHARED_RANDOM_PORTS = new AtomicInteger(-1000);

    private final Vertx vertx;
    private final List<String> deployments;
    private final int port;

    private BareProxy(Vertx vertx, List<String> deployments, int port) {
        this.vertx = vertx;
        this.deployments = List.copyOf(deployments);
        this.port = port;
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
     * Starts {@code instances} listeners, one per event loop, sharing 127.0.0.1:{@code port} (0 for
     * a free port) in front of 127.0.0.1:{@code upstreamPort}.
     */
    public static Future<BareProxy> start(Vertx vertx, int port, int upstreamPort, int instances) {
        if (instances < 1) {
            throw new IllegalArgumentException("instances: " + instances + " (expected: >= 1)");
        }
        // A negative port makes Vert.x pick one free port, shared by every listener given the same negative number.
        // Each start takes a number of its own: the fake upstream in the same Vert.x (tests) shares -1 already.
        int requested = port == 0 ? SHARED_RANDOM_PORTS.decrementAndGet() : port;
        Listener first = new Listener(requested, upstreamPort);
        return vertx.deployVerticle(first).compose(id -> {
            int actual = first.server.actualPort();
            if (instances == 1) {
                return Future.succeededFuture(new BareProxy(vertx, List.of(id), actual));
            }
            return vertx.deployVerticle(() -> new Listener(requested, upstreamPort),
                    new DeploymentOptions().setInstances(instances - 1))
                    .map(rest -> new BareProxy(vertx, List.of(id, rest), actual));
        });
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** Stops listening and closes the upstream connections; the Vert.x instance stays open. */
    public Future<Void> close() {
        Future<Void> all = Future.succeededFuture();
        for (String id : deployments) {
            all = all.compose(v -> vertx.undeploy(id));
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
    static List<String> connectionTokens(MultiMap headers) {
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

    /** The client's end-to-end headers onto the upstream request; Host is the upstream client's to set. */
    private static void copyHeaders(MultiMap from, HttpHeaders to) {
        List<String> tokens = connectionTokens(from);
        for (Map.Entry<String, String> e : from) {
            String name = e.getKey();
            if (forwarded(name, tokens) && !name.equalsIgnoreCase("host")) {
                to.add(name, e.getValue());
            }
        }
    }

    /** The upstream's end-to-end headers onto the client's answer. */
    private static void copyHeaders(HttpHeaders from, MultiMap to) {
        List<String> tokens = List.of();
        String connection = from.get("connection");
        if (connection != null) {
            tokens = connectionTokens(MultiMap.caseInsensitiveMultiMap().add("connection", connection));
        }
        for (Map.Entry<String, String> e : from) {
            if (forwarded(e.getKey(), tokens)) {
                to.add(e.getKey(), e.getValue());
            }
        }
    }

    /** One event loop's listener and its own upstream client, as each of Sluice's verticles has. */
    private static final class Listener extends VerticleBase {
        private final int requestedPort;
        private final Origin upstream;
        private UpstreamClient client;
        HttpServer server;

        Listener(int requestedPort, int upstreamPort) {
            this.requestedPort = requestedPort;
            this.upstream = new Origin("127.0.0.1", upstreamPort, false);
        }

        @Override
        public Future<?> start() {
            // The settings Sluice's GatewayVerticle uses, so that the stack is configured alike.
            Duration timeout = Duration.ofMillis(UPSTREAM_TIMEOUT_MILLIS);
            client = UpstreamClient.create(context, new UpstreamClient.Settings(UPSTREAM_POOL_SIZE, timeout, timeout,
                    Duration.ofSeconds(60)));
            // The same listener options as Sluice's (GatewayVerticle.serverOptions), WebSocket compression off included.
            HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(requestedPort)
                    .setTcpNoDelay(true).setCompressionSupported(false)
                    .setPerFrameWebSocketCompressionSupported(false).setPerMessageWebSocketCompressionSupported(false);
            return vertx.createHttpServer(options).requestHandler(this::forward).listen().onSuccess(s -> server = s);
        }

        @Override
        public Future<?> stop() {
            return server == null ? client.close() : server.close().compose(v -> client.close());
        }

        private void forward(HttpServerRequest in) {
            HttpServerResponse out = in.response();
            in.body().onComplete(ar -> {
                if (ar.failed()) {
                    return; // the client went away mid-body: there is no one to answer
                }
                Buffer body = ar.result();
                FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
                        io.netty.handler.codec.http.HttpMethod.valueOf(in.method().name()), in.uri(),
                        Unpooled.wrappedBuffer(body.getBytes()));
                copyHeaders(in.headers(), req.headers());
                if (hasBody(in)) {
                    // The client's chunking was hop-by-hop; the upstream gets the whole body's length.
                    req.headers().setInt("content-length", body.length());
                }
                Relay relay = new Relay(in, out);
                relay.call = client.send(upstream, req, relay);
                out.closeHandler(v -> relay.call.cancel());
            });
        }

        /** HTTP/1.1: a request has a body when it says how long it is or that it is chunked. */
        private static boolean hasBody(HttpServerRequest in) {
            return in.headers().contains("content-length") || in.headers().contains("transfer-encoding");
        }
    }

    /** The upstream's answer, written to the client as it comes; the upstream is paused while the client is behind. */
    private static final class Relay implements ResponseListener {
        private final HttpServerRequest in;
        private final HttpServerResponse out;
        UpstreamCallHandle call;

        Relay(HttpServerRequest in, HttpServerResponse out) {
            this.in = in;
            this.out = out;
        }

        @Override
        public void onHead(int status, HttpHeaders headers) {
            out.setStatusCode(status);
            copyHeaders(headers, out.headers());
            boolean bodyless = in.method() == HttpMethod.HEAD || status == 204 || status == 304 || status < 200;
            if (!bodyless && !headers.contains("content-length")) {
                // A stream of unknown length (SSE): the upstream's chunking was hop-by-hop, the client gets its own.
                out.setChunked(true);
            }
        }

        @Override
        public void onContent(Buffer chunk) {
            out.write(chunk);
            if (out.writeQueueFull()) {
                call.pause();
                out.drainHandler(v -> call.resume());
            }
        }

        @Override
        public void onEnd() {
            out.end();
        }

        @Override
        public void onFailure(Throwable cause) {
            if (out.headWritten()) {
                out.reset(); // a broken stream must not look complete to the client
            } else {
                out.setStatusCode(502).putHeader("content-length", "0").end();
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
