package dev.sluice.gateway;

import dev.sluice.runtime.config.ServerSettings;
import dev.sluice.gateway.proxy.GatewayCore;
import dev.sluice.gateway.upstream.UpstreamClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import dev.sluice.gateway.http.MalformedRequest;
import java.util.Optional;
import java.time.Duration;

/** One event loop's share of the gateway: a listener and an upstream client bound to that loop. */
final class GatewayVerticle extends VerticleBase {

    /** Upstream connections per event loop: enough for hundreds of concurrent streams. */
    static final int UPSTREAM_POOL_SIZE = 512;

    /** How long an unused upstream connection is kept for the next call. */
    static final Duration UPSTREAM_KEEP_ALIVE = Duration.ofSeconds(60);

    /** How long stopping waits for requests in flight before closing their connections. */
    static final long SHUTDOWN_GRACE_SECONDS = 10;

    private final GatewayCore core;
    private final ServerSettings server;
    private final int port;
    private UpstreamClient client;
    private HttpServer listener;

    private final ConnectionCaps caps;
    private ClientConnections connections;

    GatewayVerticle(GatewayCore core, ServerSettings server, int port, ConnectionCaps caps) {
        this.core = core;
        this.server = server;
        this.port = port;
        this.caps = caps;
    }

    @Override
    public Future<?> start() {
        client = UpstreamClient.create(context, new UpstreamClient.Settings(UPSTREAM_POOL_SIZE, server.upstreamTimeout(),
                server.upstreamTimeout(), UPSTREAM_KEEP_ALIVE));
        HttpServerOptions options = serverOptions(server, port);
        connections = new ClientConnections(vertx, server, caps, options);
        // Requests whose head cannot be read go the same way: the exchange answers them in the provider's shape.
        return vertx.createHttpServer(options).connectionHandler(connections::connected)
                .requestHandler(this::serve).invalidRequestHandler(this::serve).listen()
                .onSuccess(s -> listener = s);
    }

    private void serve(HttpServerRequest r) {
        if (connections.closing(r)) {
            r.connection().close();
            return;
        }
        Optional<MalformedRequest> refused = connections.head(r);
        if (refused.isPresent()) {
            core.refuse(r, client, refused.get());
        } else {
            core.handle(r, client);
        }
        // A request whose framing leaves the next one in doubt is marked at its head, before its answer (which
        // may come much later) ends: what the client pipelined behind it is never served.
        connections.closeAfter(r);
    }

    @Override
    public Future<?> stop() {
        // Graceful: stop accepting, let requests in flight finish (streams included) for a while, then close.
        Future<Void> closed = listener == null ? Future.succeededFuture()
                : listener.shutdown(SHUTDOWN_GRACE_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        return closed.compose(v -> client.close());
    }

    /**
     * The listener's options. WebSocket compression is off because Sluice serves no WebSocket:
     * offered, it puts Netty's extension handler in every connection's pipeline, where it looks at
     * each request's headers and each response on their way (about a tenth of the event loops'
     * own work per request in a profile at 5,000 req/s). HTTP/2 over cleartext (the h2c upgrade and
     * prior knowledge) is off: every SDK speaks HTTP/1.1 to Sluice, and a second protocol on the
     * client port is a second parser to harden; such a request is answered as HTTP/1.1 or refused.
     */
    static HttpServerOptions serverOptions(ServerSettings server, int port) {
        return new HttpServerOptions().setHost(server.host()).setPort(port)
                .setMaxHeaderSize(server.maxHeaderBytes()).setTcpNoDelay(true).setCompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false).setPerMessageWebSocketCompressionSupported(false)
                // A client that asks before sending a large body (curl does above 1 MB) gets its go-ahead at once
                // instead of waiting out its own timeout; a declared length over the limit is still answered 413.
                .setHandle100ContinueAutomatically(true).setHttp2ClearTextEnabled(false);
    }

    int actualPort() {
        return listener.actualPort();
    }
}
