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

    enum Mode { HANG, RESET, GARBAGE, NOT_JSON, ENDLESS_STREAM, BATCHED_STREAM }

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
