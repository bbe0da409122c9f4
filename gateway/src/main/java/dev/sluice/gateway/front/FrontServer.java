package dev.sluice.gateway.front;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ServerChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's HTTP/1.1 listener, written on Netty: accepts connections on Vert.x's acceptor
 * loop and hands each, round robin, to one of the serving event loops, where all of its requests
 * are handled.
 *
 * <p>Why not Vert.x's {@code HttpServer}: measured side by side (BENCHMARKS-gateway.md), a proxy
 * serving clients through it added about twice nginx's latency at light load, where the same
 * proxy on Netty's codec adds about what nginx adds. The gateway needs little of that server:
 * one request at a time per connection, its body gathered in memory, a response that is either
 * whole or a stream with back-pressure.
 *
 * <p>Each request is handled inside its loop's Vert.x context, so timers, workers and futures
 * used while serving it come back to the same thread.
 */
public final class FrontServer {

    /** Longest request line accepted (414 beyond). */
    static final int MAX_INITIAL_LINE_BYTES = 8192;

    /**
     * One serving event loop.
     *
     * @param context an event-loop context; its loop runs the connections given to it
     * @param handler called with every request, on that loop
     */
    public record Loop(Context context, Handler<ClientRequest> handler) {
        public Loop {
            Objects.requireNonNull(context, "context");
            Objects.requireNonNull(handler, "handler");
            if (!context.isEventLoopContext()) {
                throw new IllegalArgumentException("a serving loop needs an event-loop context");
            }
        }
    }

    private final List<Loop> loops;
    private final int maxHeaderBytes;
    private final Set<FrontConnection> open = ConcurrentHashMap.newKeySet();
    private final Promise<Void> drained;
    private ServerChannel channel;
    private int next;
    private volatile boolean closing;

    private FrontServer(VertxInternal vertx, List<Loop> loops, int maxHeaderBytes) {
        this.loops = List.copyOf(loops);
        this.maxHeaderBytes = maxHeaderBytes;
        this.drained = vertx.promise();
    }

    /**
     * Listens on {@code host:port} (port 0: any free port), serving requests on {@code loops}.
     * Request headers over {@code maxHeaderBytes} are answered 431 by the handler (see
     * {@link ClientRequest#malformed()}).
     */
    public static Future<FrontServer> listen(Vertx vertx, String host, int port, int maxHeaderBytes, List<Loop> loops) {
        if (loops.isEmpty()) {
            throw new IllegalArgumentException("no serving loops");
        }
        VertxInternal vx = (VertxInternal) vertx;
        FrontServer server = new FrontServer(vx, loops, maxHeaderBytes);
        ServerChannel ch = vx.transport().serverChannelFactory(false).newChannel();
        ch.config().setOption(ChannelOption.SO_BACKLOG, 1024);
        ch.config().setOption(ChannelOption.SO_REUSEADDR, true);
        ch.pipeline().addLast(server.new Acceptor());
        Promise<FrontServer> bound = vx.promise();
        vx.acceptorEventLoopGroup().next().register(ch).addListener(r -> {
            if (!r.isSuccess()) {
                bound.fail(r.cause());
                return;
            }
            ch.bind(new InetSocketAddress(host, port)).addListener((ChannelFuture b) -> {
                if (b.isSuccess()) {
                    server.channel = ch;
                    bound.complete(server);
                } else {
                    ch.close();
                    bound.fail(b.cause());
                }
            });
        });
        return bound.future();
    }

    /** The port listened on (the chosen one when 0 was asked for). */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /**
     * Stops accepting, closes idle connections, lets requests in flight (streams included) finish
     * for up to {@code grace}, then closes what is left. Completes when every connection is closed.
     */
    public Future<Void> shutdown(Duration grace) {
        if (closing) {
            return drained.future();
        }
        closing = true;
        channel.close().addListener(f -> {
            for (FrontConnection c : open) {
                c.closeWhenIdle();
            }
            checkDrained();
            if (!open.isEmpty()) {
                channel.eventLoop().schedule(() -> {
                    for (FrontConnection c : open) {
                        c.closeNow();
                    }
                }, grace.toNanos(), TimeUnit.NANOSECONDS);
            }
        });
        return drained.future();
    }

    void opened(FrontConnection c) {
        open.add(c);
        if (closing) {
            c.closeWhenIdle();
        }
    }

    void closed(FrontConnection c) {
        open.remove(c);
        checkDrained();
    }

    private void checkDrained() {
        if (closing && open.isEmpty()) {
            drained.tryComplete();
        }
    }

    /** Gives each accepted connection its pipeline and a serving loop, taking turns. */
    private final class Acceptor extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Channel child = (Channel) msg;
            Loop loop = loops.get(next);
            next = (next + 1) % loops.size();
            ContextInternal context = (ContextInternal) loop.context();
            child.config().setOption(ChannelOption.TCP_NODELAY, true);
            child.pipeline().addLast(new HttpServerCodec(MAX_INITIAL_LINE_BYTES, maxHeaderBytes, 8192),
                    new HttpServerExpectContinueHandler(),
                    new FrontConnection(FrontServer.this, context, loop.handler()));
            context.nettyEventLoop().register(child).addListener(r -> {
                if (!r.isSuccess()) {
                    child.unsafe().closeForcibly();
                }
            });
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // An accept failed (out of file descriptors, say): the listener goes on with the next one.
        }
    }
}
