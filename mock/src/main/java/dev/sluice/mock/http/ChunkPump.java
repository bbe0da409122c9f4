package dev.sluice.mock.http;

import dev.sluice.mock.http.StreamPlan.Chunk;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Writes a stream's pieces one after another on the event loop: output pieces are spaced by the
 * latency model with Vert.x timers, and writing pauses while the client's queue is full. Reports the
 * output tokens written exactly once, when the stream ends, is cut, or the client goes away.
 */
final class ChunkPump {

    /** What happens after the last piece. */
    enum Ending {
        /** End the response normally. */
        END,
        /** Close the connection without ending the response. */
        RESET,
        /** Write an error event, then end. */
        ERROR_EVENT
    }

    private final Vertx vertx;
    private final HttpServerRequest request;
    private final HttpServerResponse response;
    private final List<Chunk> chunks;
    private final Ending ending;
    private final Buffer errorEvent;
    private final LatencyConfig latency;
    private final LongConsumer onFinish;
    private int next;
    private long tokensWritten;
    private boolean finished;
    private long timerId = -1;
    private Future<Void> lastWrite = Future.succeededFuture();

    private ChunkPump(Vertx vertx, HttpServerRequest request, List<Chunk> chunks, Ending ending, Buffer errorEvent,
            LatencyConfig latency, LongConsumer onFinish) {
        this.vertx = vertx;
        this.request = request;
        this.response = request.response();
        this.chunks = chunks;
        this.ending = ending;
        this.errorEvent = errorEvent;
        this.latency = latency;
        this.onFinish = onFinish;
    }

    /**
     * Starts pumping; the response head must already be set up (status, headers, chunked).
     *
     * @param chunks the pieces to write, already cut if a fault applies
     * @param onFinish receives the output tokens written
     */
    static void start(Vertx vertx, HttpServerRequest request, List<Chunk> chunks, Ending ending, Buffer errorEvent,
            LatencyConfig latency, LongConsumer onFinish) {
        ChunkPump pump = new ChunkPump(vertx, request, chunks, ending, errorEvent, latency, onFinish);
        pump.response.closeHandler(v -> pump.finish());
        pump.response.exceptionHandler(e -> pump.finish());
        pump.pump();
    }

    private void pump() {
        timerId = -1;
        while (!finished) {
            if (response.closed()) {
                finish();
                return;
            }
            if (next == chunks.size()) {
                end();
                return;
            }
            if (response.writeQueueFull()) {
                response.drainHandler(v -> pump());
                return;
            }
            Chunk chunk = chunks.get(next++);
            lastWrite = response.write(chunk.data());
            tokensWritten += chunk.tokens();
            long delay = next < chunks.size() ? latency.millisFor(chunks.get(next).tokens()) : 0;
            if (delay > 0) {
                timerId = vertx.setTimer(delay, id -> pump());
                return;
            }
        }
    }

    private void end() {
        switch (ending) {
            case END -> response.end();
            case ERROR_EVENT -> response.end(errorEvent);
            // Let what was written reach the client before the connection goes.
            case RESET -> lastWrite.onComplete(ar -> request.connection().close());
        }
        finish();
    }

    private void finish() {
        if (finished) {
            return;
        }
        finished = true;
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
        }
        onFinish.accept(tokensWritten);
    }
}
