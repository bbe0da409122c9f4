package dev.sluice.gateway.upstream;

import io.netty.handler.codec.http.HttpHeaders;
import io.vertx.core.buffer.Buffer;

/**
 * What becomes of one upstream call, told on the event loop that sent it. A call ends with
 * exactly one of {@link #onEnd} and {@link #onFailure}, unless it was cancelled, after which
 * nothing more is told.
 */
public interface ResponseListener {

    /** The response's status line and headers. */
    void onHead(int status, HttpHeaders headers);

    /** The next bytes of the body, decoded from the transfer coding; never empty. */
    void onContent(Buffer chunk);

    /** The body is complete. */
    void onEnd();

    /**
     * The call failed: no connection, a broken connection, a response that is not HTTP, or
     * nothing received for the idle timeout ({@link java.util.concurrent.TimeoutException}).
     */
    void onFailure(Throwable cause);
}
