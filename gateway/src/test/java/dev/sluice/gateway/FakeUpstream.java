package dev.sluice.gateway;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A raw TCP upstream that misbehaves on purpose: hangs, resets, answers garbage, or streams forever. */
final class FakeUpstream {

    enum Mode {
        HANG, RESET, GARBAGE, NOT_JSON, ENDLESS_STREAM, BATCHED_STREAM,
        /** A 401 whose message echoes the key it was sent, an organisation id and an internal host. */
        LEAKY_UNAUTHORIZED,
        /** A 503 asking for an hour's wait, its message naming an internal address and a token. */
        LEAKY_OVERLOADED,
        /** A 400 whose message carries a URL with a key in it, and extra fields that must not be relayed. */
        LEAKY_INVALID,
        /** A 502 from an internal proxy, as HTML naming its host. */
        HTML_ERROR,
        /** A whole chat answer of about 300 KB. */
        BIG_ANSWER,
        /** An Anthropic stream that ends cleanly on the wire without its message_stop. */
        ANTHROPIC_TRUNCATED("anthropic"),
        /** An Anthropic stream whose data is not JSON. */
        ANTHROPIC_GARBAGE("anthropic"),
        /** An Anthropic stream whose connection is cut mid-answer. */
        ANTHROPIC_RESET("anthropic"),
        /** An Anthropic stream that falls silent mid-answer. */
        ANTHROPIC_STALL("anthropic"),
        /** A Gemini SSE stream that ends without a finish reason. */
        GEMINI_TRUNCATED("gemini"),
        /** A Gemini SSE stream whose connection is cut mid-answer. */
        GEMINI_RESET("gemini");

        /** The deployment kind the fixture configures for it. */
        final String kind;

        Mode() {
            this("openai");
        }

        Mode(String kind) {
            this.kind = kind;
        }
    }

    /** The text the broken streams deliver before they break. */
    static final String PARTIAL_TEXT = "Hello there";
    static final String ANTHROPIC_START = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"
            + "\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4\",\"content\":[],"
            + "\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n"
            + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
            + "{\"type\":\"text\",\"text\":\"\"}}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
            + "{\"type\":\"text_delta\",\"text\":\"" + PARTIAL_TEXT + "\"}}\n\n";
    static final String GEMINI_START = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\""
            + PARTIAL_TEXT + "\"}]}}],\"usageMetadata\":{\"promptTokenCount\":12,\"candidatesTokenCount\":3}}\n\n";

    /** The secrets and internal names the leaky modes put in their answers. */
    static final java.util.List<String> LEAKED = java.util.List.of("sk-upstream-Zq8SECRETv1x2c3", "org-Abc123Def456Ghi",
            "gw-7.internal.corp", "10.12.0.7", "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0", "AIzaSyA-leaked-key-000111222",
            "lb-3.prod.example.net");

    /** The events {@link Mode#BATCHED_STREAM} sends, all in one write. */
    static final java.util.List<String> BATCHED_EVENTS = java.util.List.of(
            "data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"One\"},\"finish_reason\":null}]}\n\n",
            "data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" two\"},\"finish_reason\":null}]}\n\n",
            "data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11}}\n\n",
            "data: [DONE]\n\n");

    final Mode mode;
    private final Vertx vertx;
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();
    private NetServer server;

    private FakeUpstream(Vertx vertx, Mode mode) {
        this.vertx = vertx;
        this.mode = mode;
    }

    static FakeUpstream start(Vertx vertx, Mode mode) throws Exception {
        FakeUpstream f = new FakeUpstream(vertx, mode);
        f.server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0).setSoLinger(0))
                .connectHandler(f::onConnect);
        f.server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return f;
    }

    int port() {
        return server.actualPort();
    }

    private void onConnect(NetSocket s) {
        connections.incrementAndGet();
        if (mode != Mode.ENDLESS_STREAM) {
            s.closeHandler(v -> closed.incrementAndGet());
        }
        boolean[] answered = {false};
        s.handler(data -> {
            if (answered[0]) {
                return;
            }
            // Wait for the end of the request head; bodies are small enough to arrive with it.
            if (!data.toString().contains("\r\n\r\n")) {
                return;
            }
            answered[0] = true;
            switch (mode) {
                case HANG -> { }
                case RESET -> s.close();
                case GARBAGE -> s.write("THIS IS NOT HTTP\r\n\r\n").onComplete(v -> s.close());
                case NOT_JSON -> s.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\nnot json!");
                case LEAKY_UNAUTHORIZED -> answer(s, "401 Unauthorized", "", "{\"error\":{\"message\":\"Incorrect API key "
                        + "provided: sk-upstream-Zq8SECRETv1x2c3 for org-Abc123Def456Ghi at gw-7.internal.corp:8443\","
                        + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}");
                case LEAKY_OVERLOADED -> answer(s, "503 Service Unavailable", "retry-after: 3600\r\n",
                        "{\"error\":{\"message\":\"Overloaded at 10.12.0.7:9000, ticket tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0\","
                        + "\"type\":\"server_error\",\"param\":null,\"code\":\"overloaded\"}}");
                case LEAKY_INVALID -> answer(s, "400 Bad Request", "", "{\"error\":{\"message\":\"Could not fetch "
                        + "https://storage.example.com/img.png?key=AIzaSyA-leaked-key-000111222\",\"type\":"
                        + "\"invalid_request_error\",\"param\":\"messages\",\"code\":\"invalid_image_url\","
                        + "\"internal\":{\"host\":\"lb-3.prod.example.net\"}}}");
                case ANTHROPIC_TRUNCATED -> stream(s, ANTHROPIC_START, End.CLEAN);
                case ANTHROPIC_GARBAGE -> stream(s, "event: message_start\ndata: <<<not json>>>\n\n", End.CLEAN);
                case ANTHROPIC_RESET -> stream(s, ANTHROPIC_START, End.RESET);
                case ANTHROPIC_STALL -> stream(s, ANTHROPIC_START, End.SILENCE);
                case GEMINI_TRUNCATED -> stream(s, GEMINI_START, End.CLEAN);
                case GEMINI_RESET -> stream(s, GEMINI_START, End.RESET);
                case BIG_ANSWER -> answer(s, "200 OK", "", "{\"id\":\"c\",\"object\":\"chat.completion\",\"model\":"
                        + "\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\""
                        + "word ".repeat(60_000) + "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9,"
                        + "\"completion_tokens\":60000,\"total_tokens\":60009}}");
                case HTML_ERROR -> {
                    String html = "<html><body>502 Bad Gateway from lb-3.prod.example.net</body></html>";
                    s.write("HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\ncontent-length: " + html.length()
                            + "\r\n\r\n" + html);
                }
                case BATCHED_STREAM -> {
                    // A whole stream, one HTTP chunk per event, in one write: the gateway reads it at once.
                    StringBuilder out = new StringBuilder("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                            + "transfer-encoding: chunked\r\n\r\n");
                    for (String e : BATCHED_EVENTS) {
                        out.append(Integer.toHexString(e.length())).append("\r\n").append(e).append("\r\n");
                    }
                    s.write(out.append("0\r\n\r\n").toString());
                    answered[0] = false;
                }
                case ENDLESS_STREAM -> {
                    s.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n");
                    pump(s);
                }
            }
        });
    }

    enum End { CLEAN, RESET, SILENCE }

    /** A 200 event stream carrying {@code events} in one chunk, then ending as {@code end} says. */
    private static void stream(NetSocket s, String events, End end) {
        byte[] b = events.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        s.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
                + Integer.toHexString(b.length) + "\r\n" + events + "\r\n" + (end == End.CLEAN ? "0\r\n\r\n" : ""))
                .onComplete(v -> {
                    if (end == End.RESET) {
                        s.close(); // with SO_LINGER 0: a reset
                    }
                });
    }

    private static void answer(NetSocket s, String status, String headers, String json) {
        byte[] body = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        s.write("HTTP/1.1 " + status + "\r\ncontent-type: application/json\r\n" + headers + "content-length: "
                + body.length + "\r\n\r\n" + json);
    }

    /** Writes SSE chunks for as long as the gateway keeps reading. */
    private void pump(NetSocket s) {
        String event = "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
                + "{\"content\":\"" + "word ".repeat(200) + "\"}}]}\n\n";
        String chunk = Integer.toHexString(event.length()) + "\r\n" + event + "\r\n";
        Buffer b = Buffer.buffer(chunk);
        boolean[] open = {true};
        s.closeHandler(v -> {
            open[0] = false;
            closed.incrementAndGet();
        });
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            // A closed socket never reports a full queue: stop on close, and never spin in one turn.
            for (int i = 0; i < 64 && open[0] && !s.writeQueueFull(); i++) {
                s.write(b);
            }
            if (!open[0]) {
                return;
            }
            if (s.writeQueueFull()) {
                s.drainHandler(v -> next[0].run());
            } else {
                vertx.runOnContext(v -> next[0].run());
            }
        };
        next[0].run();
    }

    void close() {
        server.close();
    }
}
