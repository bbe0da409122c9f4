package dev.sluice.gateway;

import dev.sluice.gateway.config.ServerSettings;
import dev.sluice.gateway.proxy.GatewayCore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;

/** One event loop's share of the gateway: a listener and an upstream client bound to that loop. */
final class GatewayVerticle extends VerticleBase {

    /** Upstream connections per event loop: enough for hundreds of concurrent streams. */
    static final int UPSTREAM_POOL_SIZE = 512;

    /** How long stopping waits for requests in flight before closing their connections. */
    static final long SHUTDOWN_GRACE_SECONDS = 10;

    private final GatewayCore core;
    private final ServerSettings server;
    private final int port;
    private HttpClient client;
    private HttpServer listener;

    GatewayVerticle(GatewayCore core, ServerSettings server, int port) {
        this.core = core;
        this.server = server;
        this.port = port;
    }

    @Override
    public Future<?> start() {
        client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true)
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, server.upstreamTimeout().toMillis())),
                new PoolOptions().setHttp1MaxSize(UPSTREAM_POOL_SIZE).setMaxWaitQueueSize(-1));
        HttpServerOptions options = new HttpServerOptions().setHost(server.host()).setPort(port)
                .setMaxHeaderSize(server.maxHeaderBytes()).setTcpNoDelay(true).setCompressionSupported(false);
        return vertx.createHttpServer(options).requestHandler(r -> core.handle(r, client)).listen()
                .onSuccess(s -> listener = s);
    }

    @Override
    public Future<?> stop() {
        // Graceful: stop accepting, let requests in flight finish (streams included) for a while, then close.
        Future<Void> closed = listener == null ? Future.succeededFuture()
                : listener.shutdown(SHUTDOWN_GRACE_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        return closed.compose(v -> client.close());
    }

    int actualPort() {
        return listener.actualPort();
    }
}
