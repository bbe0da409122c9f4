package dev.sluice.gateway.upstream;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * One event loop's HTTP/1.1 client for provider calls: keep-alive connections pooled per origin
 * on that loop, so that a request and its upstream call never change threads.
 *
 * <p>Why not Vert.x's {@code HttpClient}: measured side by side (BENCHMARKS-gateway.md), a proxy
 * whose upstream leg is written on Netty directly costs about what nginx costs per request, where
 * the same proxy on Vert.x's client spends a quarter more CPU. The gateway needs little of that
 * client: one request and one response per connection at a time, a body already in memory,
 * streaming with back-pressure.
 *
 * <p>Not thread-safe in itself: every call is made on its event loop, or moved there.
 */
public final class UpstreamClient {

    /**
     * How the client treats connections.
     *
     * @param maxConnectionsPerOrigin connections open at once to one origin from this event loop; calls beyond wait
     * @param connectTimeout          how long a connection (and its name lookup) may take
     * @param idleTimeout             how long a call may go without receiving anything before it fails
     * @param keepAlive               how long an unused connection stays open for the next call
     */
    public record Settings(int maxConnectionsPerOrigin, Duration connectTimeout, Duration idleTimeout, Duration keepAlive) {
        public Settings {
            if (maxConnectionsPerOrigin < 1 || connectTimeout.isNegative() || connectTimeout.isZero()
                    || idleTimeout.isNegative() || idleTimeout.isZero() || keepAlive.isNegative() || keepAlive.isZero()) {
                throw new IllegalArgumentException("upstream client settings: " + maxConnectionsPerOrigin + " connections, "
                        + connectTimeout + " to connect, " + idleTimeout + " idle, " + keepAlive + " keep-alive");
            }
        }
    }

    final ContextInternal context;
    final EventLoop loop;
    final Settings settings;
    private final Bootstrap bootstrap;
    private final SslContext tls;
    private final ChannelGroup channels;
    private final Map<Origin, Pool> pools = new HashMap<>();
    private final ScheduledFuture<?> sweep;
    private boolean closed;

    private UpstreamClient(ContextInternal context, Settings settings, SslContext tls) {
        this.context = context;
        this.loop = context.nettyEventLoop();
        this.settings = settings;
        this.tls = tls;
        VertxInternal vertx = context.owner();
        this.bootstrap = new Bootstrap().group(loop).channelFactory(vertx.transport().channelFactory(false))
                .resolver(vertx.nameResolver().nettyAddressResolverGroup())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis()));
        this.channels = new DefaultChannelGroup(loop);
        long sweepNanos = Math.max(TimeUnit.SECONDS.toNanos(1), settings.keepAlive().toNanos() / 2);
        this.sweep = loop.scheduleAtFixedRate(this::closeLongIdle, sweepNanos, sweepNanos, TimeUnit.NANOSECONDS);
    }

    /** A client on {@code context}'s event loop (an event-loop context), trusting the JDK's certificate authorities. */
    public static UpstreamClient create(Context context, Settings settings) {
        try {
            return create(context, settings, SslContextBuilder.forClient().sslProvider(SslProvider.JDK).build());
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS for provider calls: " + e.getMessage(), e);
        }
    }

    /** A client that verifies providers' certificates with {@code tls} (tests bring their own authority). */
    public static UpstreamClient create(Context context, Settings settings, SslContext tls) {
        if (!context.isEventLoopContext()) {
            throw new IllegalArgumentException("the upstream client needs an event-loop context");
        }
        return new UpstreamClient((ContextInternal) context, settings, tls);
    }

    /**
     * Sends {@code request} (its body whole, its headers complete but for Host, which is set
     * here) to {@code origin}, telling {@code listener} what comes back.
     */
    public UpstreamCallHandle send(Origin origin, FullHttpRequest request, ResponseListener listener) {
        Call call = new Call(this, origin, request, listener);
        if (loop.inEventLoop()) {
            start(call);
        } else {
            loop.execute(() -> start(call));
        }
        return call;
    }

    Pool poolOf(Origin origin) {
        return pools.get(origin);
    }

    private void start(Call call) {
        if (closed) {
            call.fail(new IllegalStateException("the upstream client is closed"));
            return;
        }
        pools.computeIfAbsent(call.origin, o -> new Pool(this, o)).acquire(call);
    }

    /** Opens a connection to {@code origin}; its handler is {@link Connection}. */
    io.netty.channel.ChannelFuture connect(Pool pool) {
        Origin o = pool.origin;
        return bootstrap.clone().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                channels.add(ch);
                if (o.tls()) {
                    SslHandler ssl = tls.newHandler(ch.alloc(), o.host(), o.port());
                    SSLEngine engine = ssl.engine();
                    SSLParameters p = engine.getSSLParameters();
                    p.setEndpointIdentificationAlgorithm("HTTPS");
                    engine.setSSLParameters(p);
                    ch.pipeline().addLast(ssl);
                }
                ch.pipeline().addLast(new HttpClientCodec(), new Connection(pool, ch));
            }
        }).connect(InetSocketAddress.createUnresolved(o.host(), o.port()));
    }

    private void closeLongIdle() {
        long now = System.nanoTime();
        for (Pool p : pools.values()) {
            p.closeIdleSince(now - settings.keepAlive().toNanos());
        }
    }

    /** Closes every connection and fails calls still waiting for one. */
    public Future<Void> close() {
        Promise<Void> done = context.promise();
        loop.execute(() -> {
            closed = true;
            sweep.cancel(false);
            for (Pool p : pools.values()) {
                p.failWaiters();
            }
            channels.close().addListener(f -> done.complete());
        });
        return done.future();
    }
}
