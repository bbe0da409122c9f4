package dev.sluice.bench.load;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The fastest upstream the comparison can have: answers {@code POST /v1/chat/completions} at once
 * with a fixed OpenAI-shaped completion, or, when the request body asks for {@code "stream":true},
 * a fixed stream of a few chunks, a usage chunk and {@code [DONE]}. Every other request gets 404.
 * Binds to 127.0.0.1 only. The stream flag is found by a byte search, not a JSON parse, so that
 * the upstream costs as little as possible; clients must send compact JSON (Sluice does).
 */
public final class FakeUpstream {

    /** The non-streaming answer, with usage. */
    public static final String COMPLETION = """
            {"id":"chatcmpl-bench","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",\
            "choices":[{"index":0,"message":{"role":"assistant","content":"Hello from the fake upstream."},\
            "finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}""";

    /** The streaming answer, one string per SSE event: role, three deltas, finish, usage, [DONE]. */
    public static final List<String> STREAM = List.of(
            chunk("{\"role\":\"assistant\",\"content\":\"\"}", "null"),
            chunk("{\"content\":\"Hello\"}", "null"),
            chunk("{\"content\":\" from the\"}", "null"),
            chunk("{\"content\":\" fake upstream.\"}", "null"),
            chunk("{}", "\"stop\""),
            "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                    + "\"model\":\"gpt-4o-mini\",\"choices\":[],"
                    + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":7,\"total_tokens\":19}}\n\n",
            "data: [DONE]\n\n");

    static final String PATH = "/v1/chat/completions";
    private static final byte[] STREAM_FLAG = "\"stream\":true".getBytes(StandardCharsets.US_ASCII);

    private final Vertx vertx;
    private final List<String> deployments;
    private final int port;

    private FakeUpstream(Vertx vertx, List<String> deployments, int port) {
        this.vertx = vertx;
        this.deployments = deployments;
        this.port = port;
    }

    /** Starts {@code instances} listeners (one per event loop) sharing one free port on 127.0.0.1. */
    public static Future<FakeUpstream> start(Vertx vertx, int instances) {
        if (instances < 1) {
            throw new IllegalArgumentException("instances: " + instances + " (expected: >= 1)");
        }
        // A negative port asks Vert.x for one free port shared by every listener given the same number.
        Listener first = new Listener(-1);
        return vertx.deployVerticle(first).compose(id -> {
            int port = first.server.actualPort();
            Future<String> rest = Future.succeededFuture(id);
            if (instances > 1) {
                rest = vertx.deployVerticle(() -> new Listener(-1), new DeploymentOptions().setInstances(instances - 1));
            }
            return rest.map(second -> new FakeUpstream(vertx, instances > 1 ? List.of(id, second) : List.of(id), port));
        });
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:port}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** Stops listening. */
    public Future<Void> close() {
        Future<Void> all = Future.succeededFuture();
        for (String id : deployments) {
            all = all.compose(v -> vertx.undeploy(id));
        }
        return all;
    }

    private static String chunk(String delta, String finish) {
        return "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"finish_reason\":" + finish + "}]}\n\n";
    }

    static boolean asksForStream(Buffer body) {
        int n = body.length() - STREAM_FLAG.length;
        outer:
        for (int i = 0; i <= n; i++) {
            for (int j = 0; j < STREAM_FLAG.length; j++) {
                if (body.getByte(i + j) != STREAM_FLAG[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** One event loop's listener. The answers are built once and shared (buffers are copied on write). */
    private static final class Listener extends VerticleBase {
        private static final Buffer COMPLETION_BYTES = Buffer.buffer(COMPLETION);
        private static final List<Buffer> STREAM_BYTES = STREAM.stream().map(Buffer::buffer).toList();
        private static final String COMPLETION_LENGTH = Integer.toString(COMPLETION_BYTES.length());

        private final int requestedPort;
        HttpServer server;

        Listener(int requestedPort) {
            this.requestedPort = requestedPort;
        }

        @Override
        public Future<?> start() {
            HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(requestedPort)
                    .setTcpNoDelay(true).setCompressionSupported(false);
            return vertx.createHttpServer(options).requestHandler(this::serve).listen().onSuccess(s -> server = s);
        }

        private void serve(HttpServerRequest req) {
            HttpServerResponse resp = req.response();
            if (!PATH.equals(req.path())) {
                resp.setStatusCode(404).end();
                return;
            }
            req.body().onSuccess(body -> {
                if (asksForStream(body)) {
                    resp.putHeader("content-type", "text/event-stream").putHeader("cache-control", "no-cache")
                            .setChunked(true);
                    for (Buffer b : STREAM_BYTES) {
                        resp.write(b);
                    }
                    resp.end();
                } else {
                    resp.putHeader("content-type", "application/json").putHeader("content-length", COMPLETION_LENGTH)
                            .end(COMPLETION_BYTES);
                }
            });
        }
    }
}
