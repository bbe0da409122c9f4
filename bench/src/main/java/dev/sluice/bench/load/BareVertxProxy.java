package dev.sluice.bench.load;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
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
 * A reverse proxy on the same HTTP stack as Sluice (Vert.x 5 HttpServer and HttpClient, the same
 * event loop layout and upstream pool) and nothing else: no authentication, no JSON, no quotas.
 * What it costs is the floor for any proxy built on this stack, so that a report can tell how
 * much of Sluice's cost is the stack and how much is Sluice.
 *
 * <p>Every request goes to the one upstream with its method, URI and end-to-end headers; the
 * answer's status, headers and body come back streamed with back-pressure both ways, so whole
 * JSON answers and SSE streams pass alike.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.sluice.bench.load.BareVertxProxy --port P --upstream-port U</pre>
 */
public final class BareVertxProxy {

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

    private BareVertxProxy(Vertx vertx, List<String> deployments, int port) {
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
            System.err.println("usage: BareVertxProxy --port P --upstream-port U");
            System.exit(2);
        }
        int port = Integer.parseInt(args[1]);
        int upstreamPort = Integer.parseInt(args[3]);
        // Default options, like the Vert.x instance Gateway.Builder makes when given none.
        Vertx vertx = Vertx.vertx();
        BareVertxProxy p = start(vertx, port, upstreamPort, defaultInstances()).toCompletionStage().toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
        System.out.println("Bare Vert.x proxy listening on 127.0.0.1:" + p.port() + " with " + defaultInstances()
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
    public static Future<BareVertxProxy> start(Vertx vertx, int port, int upstreamPort, int instances) {
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
                return Future.succeededFuture(new BareVertxProxy(vertx, List.of(id), actual));
            }
            return vertx.deployVerticle(() -> new Listener(requested, upstreamPort),
                    new DeploymentOptions().setInstances(instances - 1))
                    .map(rest -> new BareVertxProxy(vertx, List.of(id, rest), actual));
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

    private static void copyHeaders(MultiMap from, MultiMap to, boolean dropHost) {
        List<String> tokens = connectionTokens(from);
        for (Map.Entry<String, String> e : from) {
            String name = e.getKey();
            if (forwarded(name, tokens) && !(dropHost && name.equalsIgnoreCase("host"))) {
                to.add(name, e.getValue());
            }
        }
    }

    /** One event loop's listener and its own upstream client, as each of Sluice's verticles has. */
    private static final class Listener extends VerticleBase {
        private final int requestedPort;
        private final int upstreamPort;
        private HttpClient client;
        HttpServer server;

        Listener(int requestedPort, int upstreamPort) {
            this.requestedPort = requestedPort;
            this.upstreamPort = upstreamPort;
        }

        @Override
        public Future<?> start() {
            // The options Sluice's GatewayVerticle uses, so that the stack is configured alike.
            client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true)
                    .setConnectTimeout(UPSTREAM_TIMEOUT_MILLIS),
                    new PoolOptions().setHttp1MaxSize(UPSTREAM_POOL_SIZE).setMaxWaitQueueSize(-1));
            HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(requestedPort)
                    .setTcpNoDelay(true).setCompressionSupported(false);
            return vertx.createHttpServer(options).requestHandler(this::forward).listen().onSuccess(s -> server = s);
        }

        @Override
        public Future<?> stop() {
            return server == null ? client.close() : server.close().compose(v -> client.close());
        }

        private void forward(HttpServerRequest in) {
            // The body must wait until there is an upstream request to write it to.
            in.pause();
            HttpServerResponse out = in.response();
            RequestOptions o = new RequestOptions().setMethod(in.method()).setHost("127.0.0.1").setPort(upstreamPort)
                    .setURI(in.uri()).setIdleTimeout(UPSTREAM_TIMEOUT_MILLIS);
            client.request(o).compose(req -> {
                copyHeaders(in.headers(), req.headers(), true);
                // A request without a body is piped too: the pipe ends the upstream request when the client's ends,
                // on the same path as every other request.
                if (hasBody(in) && !req.headers().contains("content-length")) {
                    // The client's chunking was hop-by-hop; the upstream gets chunks of its own.
                    req.setChunked(true);
                }
                // The pipe pauses the client while the upstream's write queue is full. A client that goes away
                // mid-body must not leave the upstream a body that looks whole, so that request is reset, not ended.
                in.pipe().endOnFailure(false).to(req).onFailure(e -> req.reset());
                return req.response();
            }).onComplete(ar -> {
                if (ar.succeeded()) {
                    relay(ar.result(), in, out);
                } else {
                    fail(in, out);
                }
            });
        }

        /** HTTP/1.1: a request has a body when it says how long it is or that it is chunked. */
        private static boolean hasBody(HttpServerRequest in) {
            return in.headers().contains("content-length") || in.headers().contains("transfer-encoding");
        }

        private static void relay(HttpClientResponse r, HttpServerRequest in, HttpServerResponse out) {
            int status = r.statusCode();
            out.setStatusCode(status).setStatusMessage(r.statusMessage());
            copyHeaders(r.headers(), out.headers(), false);
            boolean bodyless = in.method() == HttpMethod.HEAD || status == 204 || status == 304 || status < 200;
            if (!bodyless && !r.headers().contains("content-length")) {
                // A stream of unknown length (SSE): the upstream's chunking was hop-by-hop, the client gets its own.
                out.setChunked(true);
            }
            // The pipe pauses the upstream while the client's write queue is full and resumes it on drain.
            r.pipe().endOnFailure(false).to(out).onFailure(e -> {
                // A broken stream must not look complete to the client, and its upstream connection is not reusable.
                r.request().reset();
                out.reset();
            });
        }

        private static void fail(HttpServerRequest in, HttpServerResponse out) {
            in.resume();
            if (out.headWritten()) {
                out.reset();
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
            Path dir = Files.createTempDirectory("sluice-bench-vertx");
            int port = Ports.free();
            List<String> cmd = new ArrayList<>();
            cmd.add(ProcessHandle.current().info().command().orElse("java"));
            cmd.addAll(jvmArgs);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), BareVertxProxy.class.getName(),
                    "--port", Integer.toString(port), "--upstream-port", Integer.toString(upstreamPort)));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("vertx.log").toFile())
                    .start();
            try {
                Ports.awaitListening(port, Duration.ofSeconds(90), p);
            } catch (IOException e) {
                Ports.stop(p);
                throw new IOException(e.getMessage() + "; see " + dir.resolve("vertx.log"), e);
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
