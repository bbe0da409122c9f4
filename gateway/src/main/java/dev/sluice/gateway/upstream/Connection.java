package dev.sluice.gateway.upstream;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.internal.buffer.BufferInternal;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One keep-alive connection to an origin, carrying one call at a time.
 *
 * <p>A kept-alive connection can be closed by the provider just as a call is written to it: the
 * provider ends an idle connection (uvicorn, which serves vLLM, does after 5 s) while the request
 * is on its way. Such a call is sent again on another connection, which is safe because the
 * provider closed the connection without reading it. It is told apart by three things: the
 * connection carried a call before, nothing of the answer arrived, and the close came within
 * {@link #STALE_WINDOW_NANOS} of the write. A provider that fails a call it did read, after working
 * on it, takes longer than that, and that call fails as before. A call sent again may meet another
 * stale connection (a provider that restarted closed them all): each is tried once and closed, so
 * the call goes out at most once per idle connection, and a call that fails on a new connection
 * is never sent again.
 */
final class Connection extends ChannelInboundHandlerAdapter {

    /** A reused connection closed this soon after a call was written to it was stale, not failing: 1 s. */
    static final long STALE_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Pool pool;
    private final Channel channel;
    private final long idleTimeoutNanos;
    /** The call whose response is being read; null between calls. */
    private Call call;
    private boolean keepAlive;
    /** Inside a 1xx response, which is skipped. */
    private boolean informational;
    private long lastActivityNanos;
    private ScheduledFuture<?> idleCheck;
    private boolean gone;
    long idleSince;
    /** Calls this connection has answered in full. */
    private int carried;
    /** Whether any of the current call's answer has arrived. */
    private boolean answerStarted;
    private long writtenAtNanos;
    /**
     * The current call's request, retained so that it can be sent again while this connection may
     * prove stale, with where its body started; null otherwise.
     */
    private FullHttpRequest kept;
    private int keptBodyStart;

    Connection(Pool pool, Channel channel) {
        this.pool = pool;
        this.channel = channel;
        this.idleTimeoutNanos = pool.client.settings.idleTimeout().toNanos();
    }

    boolean reusable(long now) {
        return !gone && channel.isActive() && now - idleSince < pool.client.settings.keepAlive().toNanos();
    }

    void start(Call c) {
        call = c;
        c.connection = this;
        keepAlive = true;
        informational = false;
        answerStarted = false;
        lastActivityNanos = System.nanoTime();
        writtenAtNanos = lastActivityNanos;
        if (carried > 0) {
            kept = c.request.retain(); // a count, not a copy: the write releases the request, this keeps its body
            keptBodyStart = c.request.content().readerIndex();
        }
        if (c.paused) {
            channel.config().setAutoRead(false);
        } else if (!channel.config().isAutoRead()) {
            channel.config().setAutoRead(true);
        }
        channel.writeAndFlush(c.request).addListener(f -> {
            if (f.isSuccess()) {
                c.sent = true;
            } else if (call == c) {
                if (f.cause() instanceof IOException && resendIfStale()) {
                    channel.close();
                } else {
                    drop(f.cause());
                }
            }
        });
        idleCheck = channel.eventLoop().schedule(this::checkIdle, idleTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    void pause() {
        channel.config().setAutoRead(false);
    }

    void resume() {
        lastActivityNanos = System.nanoTime();
        channel.config().setAutoRead(true);
        channel.read();
    }

    /** The call was abandoned: an unfinished response makes the connection unusable. */
    void abandon(Call c) {
        if (call == c) {
            endCall();
            channel.close();
        }
    }

    void close() {
        channel.close();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            read(msg);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void read(Object msg) {
        Call c = call;
        if (c == null) {
            channel.close(); // nothing was asked: the connection is out of step
            return;
        }
        lastActivityNanos = System.nanoTime();
        answerStarted = true;
        if (msg instanceof HttpObject o && o.decoderResult().isFailure()) {
            drop(new UpstreamProtocolException(o.decoderResult().cause()));
            return;
        }
        if (msg instanceof HttpResponse r) {
            int status = r.status().code();
            if (status >= 100 && status < 200) {
                informational = true;
            } else {
                keepAlive = HttpUtil.isKeepAlive(r);
                c.head(status, r.headers());
            }
        }
        if (msg instanceof HttpContent content) {
            boolean last = msg instanceof LastHttpContent;
            if (informational) {
                informational = !last;
                return;
            }
            if (content.content().isReadable() && call == c) {
                // One copy out of the pooled read buffer, then wrapped: Buffer.buffer(byte[]) would copy it
                // a second time (3% of the gateway's allocation at 5,000 req/s, measured with JFR).
                c.content(BufferInternal.buffer(Unpooled.wrappedBuffer(ByteBufUtil.getBytes(content.content()))));
            }
            if (last && call == c) {
                carried++;
                endCall();
                if (keepAlive && channel.isActive()) {
                    pool.release(this);
                } else {
                    channel.close();
                }
                c.end();
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        gone();
        if (call != null && !resendIfStale()) {
            failCall(new IOException("the provider closed the connection before the response was complete"));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException && call != null && resendIfStale()) {
            channel.close();
            return;
        }
        drop(cause);
    }

    /** Sends the current call again elsewhere if this connection was stale when it was written (see the class comment). */
    private boolean resendIfStale() {
        if (kept == null || answerStarted || System.nanoTime() - writtenAtNanos > STALE_WINDOW_NANOS) {
            return false;
        }
        Call c = call;
        FullHttpRequest again = kept;
        kept = null; // the write that sends it again releases it
        again.content().readerIndex(keptBodyStart);
        endCall();
        c.detach();
        pool.acquire(c);
        return true;
    }

    /** Counts the connection closed, once. */
    void gone() {
        if (!gone) {
            gone = true;
            pool.closed(this);
        }
    }

    private void checkIdle() {
        idleCheck = null;
        if (call == null) {
            return;
        }
        long now = System.nanoTime();
        long quiet = now - lastActivityNanos;
        if (call.paused || quiet < idleTimeoutNanos) {
            long next = call.paused ? idleTimeoutNanos : idleTimeoutNanos - quiet;
            idleCheck = channel.eventLoop().schedule(this::checkIdle, next, TimeUnit.NANOSECONDS);
            return;
        }
        drop(new TimeoutException("The provider sent nothing for " + TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos) + " ms"));
    }

    /** Fails the current call and closes the connection. */
    private void drop(Throwable cause) {
        if (call != null) {
            failCall(cause);
        }
        channel.close();
    }

    private void failCall(Throwable cause) {
        Call c = call;
        endCall();
        c.fail(cause);
    }

    private void endCall() {
        call = null;
        if (kept != null) {
            kept.release();
            kept = null;
        }
        if (idleCheck != null) {
            idleCheck.cancel(false);
            idleCheck = null;
        }
    }
}
