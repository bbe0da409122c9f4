package dev.sluice.gateway.upstream;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.vertx.core.buffer.Buffer;

/** One upstream call: its request, where it stands, and the listener to tell. */
final class Call implements UpstreamCallHandle {

    private final UpstreamClient client;
    final Origin origin;
    final FullHttpRequest request;
    private final ResponseListener listener;
    /** The connection carrying it, once it has one. */
    Connection connection;
    boolean waiting;
    boolean sent;
    boolean paused;
    private boolean cancelled;
    private boolean done;

    Call(UpstreamClient client, Origin origin, FullHttpRequest request, ResponseListener listener) {
        this.client = client;
        this.origin = origin;
        this.request = request;
        this.listener = listener;
    }

    boolean cancelled() {
        return cancelled;
    }

    @Override
    public boolean sent() {
        return sent;
    }

    @Override
    public void pause() {
        onLoop(() -> {
            paused = true;
            if (connection != null && !done) {
                connection.pause();
            }
        });
    }

    @Override
    public void resume() {
        onLoop(() -> {
            paused = false;
            if (connection != null && !done) {
                connection.resume();
            }
        });
    }

    @Override
    public void cancel() {
        onLoop(() -> {
            if (cancelled) {
                return;
            }
            cancelled = true;
            if (done) {
                return; // a failure may still be on its way: cancelled, it is not told
            }
            if (waiting) {
                waiting = false;
                client.poolOf(origin).forget(this);
            } else if (connection != null) {
                connection.abandon(this);
            }
            // Still connecting: the connection goes to the pool unused when it opens.
        });
    }

    /** Leaves the connection it was written to, which had been closed, to go out again on another. */
    void detach() {
        connection = null;
    }

    void head(int status, HttpHeaders headers) {
        if (!cancelled && !done) {
            sent = true;
            client.context.emit(v -> listener.onHead(status, headers));
        }
    }

    void content(Buffer chunk) {
        if (!cancelled && !done) {
            client.context.emit(chunk, listener::onContent);
        }
    }

    void end() {
        if (!cancelled && !done) {
            done = true;
            client.context.emit(v -> listener.onEnd());
        }
    }

    void fail(Throwable cause) {
        if (!cancelled && !done) {
            done = true;
            // Told in a later turn: a call can fail before send() has returned (a closed client,
            // a connect attempt refused at once), and its sender has no handle yet.
            client.context.runOnContext(v -> {
                if (!cancelled) {
                    listener.onFailure(cause);
                }
            });
        }
    }

    private void onLoop(Runnable r) {
        if (client.loop.inEventLoop()) {
            r.run();
        } else {
            client.loop.execute(r);
        }
    }
}
