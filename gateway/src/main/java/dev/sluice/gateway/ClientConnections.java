package dev.sluice.gateway;

import dev.sluice.gateway.http.MalformedRequest;
import dev.sluice.runtime.config.ServerSettings;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.HttpServerConnection;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The client connections of one event loop, each with its timer and its place under the caps. A
 * new connection has {@code server.header_timeout} to send a whole request head and a kept-alive
 * one {@code server.idle_timeout} after its last answer; beyond that it is closed, so silent or
 * trickling sockets cannot hold descriptors. While a request is in flight no connection timer
 * runs: the body has its own ({@code server.body_timeout}, in the request), the answer the
 * upstream's. Every answer on a kept-alive connection says {@code Keep-Alive: timeout=N}, N a
 * margin below the idle timeout ({@link #advertisedIdleSeconds}). Each connection's request
 * decoder is Sluice's own ({@link RequestFraming}). Confined to its event loop.
 */
final class ClientConnections {

    /** The name Vert.x gives the HTTP/1.x request decoder in a connection's pipeline. */
    static final String DECODER = "httpDecoder";

    /**
     * The longest a connection beyond a cap has to send its head (and be answered 503): a second,
     * or {@code server.header_timeout} where shorter. A socket beyond the caps holds a descriptor
     * until it is closed, and silent ones held for the whole header timeout would fill the
     * descriptors the caps keep free, so that the listener could accept no one.
     */
    static final long OVER_CAP_HEAD_MILLIS = 1_000;

    private final Vertx vertx;
    private final ServerSettings server;
    private final ConnectionCaps caps;
    private final HttpServerOptions options;
    private final Map<HttpConnection, Open> open = new HashMap<>();

    /** One connection's state. */
    private static final class Open {
        final String address;
        final boolean counted;
        long timer = -1;
        int inFlight;
        /** An answer said {@code connection: close}: whatever the client pipelined after it is not served. */
        boolean closing;

        Open(String address, boolean counted) {
            this.address = address;
            this.counted = counted;
        }
    }

    ClientConnections(Vertx vertx, ServerSettings server, ConnectionCaps caps, HttpServerOptions options) {
        this.vertx = vertx;
        this.server = server;
        this.caps = caps;
        this.options = options;
    }

    /**
     * A client connected: its decoder replaced by {@link RequestFraming}, counted under the caps (or
     * marked over them) and given its head timeout. Vert.x calls this as it sets up the connection's
     * pipeline, before anything is read from it, so the replaced decoder holds no bytes yet.
     */
    void connected(HttpConnection c) {
        if (c instanceof HttpServerConnection s
                && s.channelHandlerContext().pipeline().get(DECODER) instanceof VertxHttpRequestDecoder) {
            s.channelHandlerContext().pipeline().replace(DECODER, DECODER, new RequestFraming(options));
        }
        String address = c.remoteAddress() == null || c.remoteAddress().hostAddress() == null ? ""
                : c.remoteAddress().hostAddress();
        boolean counted = caps.tryOpen(address);
        if (!counted && !caps.tryRefuse()) {
            c.close(); // beyond the caps and the room kept for 503s: its descriptor is given back at once
            return;
        }
        Open o = new Open(address, counted);
        open.put(c, o);
        long head = server.headerTimeout().toMillis();
        arm(c, o, o.counted ? head : Math.min(head, OVER_CAP_HEAD_MILLIS));
        c.closeHandler(v -> {
            cancel(o);
            open.remove(c);
            if (o.counted) {
                caps.closed(o.address);
            } else {
                caps.refusedClosed();
            }
        });
    }

    /**
     * A request's head arrived: its connection's timer stops until the answer ends. Empty to serve
     * the request; {@link MalformedRequest#TOO_MANY_CONNECTIONS} when the connection is over a cap.
     */
    Optional<MalformedRequest> head(HttpServerRequest r) {
        HttpConnection c = r.connection();
        Open o = c == null ? null : open.get(c);
        if (o == null) {
            return Optional.empty();
        }
        cancel(o);
        o.inFlight++;
        advertisedIdleSeconds(server.idleTimeout()).ifPresent(seconds -> r.response().headersEndHandler(v -> {
            if (staysOpen(r)) {
                r.response().headers().set("keep-alive", "timeout=" + seconds);
            }
        }));
        r.response().endHandler(v -> {
            o.closing |= "close".equalsIgnoreCase(r.response().headers().get("connection"));
            if (--o.inFlight == 0 && open.containsKey(c) && !o.closing) {
                arm(c, o, server.idleTimeout().toMillis());
            }
        });
        return o.counted ? Optional.empty() : Optional.of(MalformedRequest.TOO_MANY_CONNECTIONS);
    }

    /**
     * The idle timeout told to clients in {@code Keep-Alive: timeout=N}: whole seconds, a margin
     * (a tenth, at least one second) below {@code idle}, so that a client that honours it (Vert.x,
     * curl, browsers) retires a pooled connection before the gateway closes it. Without the margin
     * a client may send on a connection at the instant the gateway closes it, and that request ends
     * with a connection error and no status (the gateway never read it). Empty when the margin
     * leaves less than one second: {@code timeout=0} reads as "no timeout" to some clients.
     */
    static OptionalLong advertisedIdleSeconds(Duration idle) {
        long millis = idle.toMillis();
        long seconds = (millis - Math.max(1_000, millis / 10)) / 1_000;
        return seconds >= 1 ? OptionalLong.of(seconds) : OptionalLong.empty();
    }

    /** Whether {@code r}'s connection stays open after its answer: neither side said close, nor is it plain HTTP/1.0. */
    private static boolean staysOpen(HttpServerRequest r) {
        String answer = r.response().headers().get("connection");
        String asked = r.getHeader("connection");
        if ("close".equalsIgnoreCase(answer) || "close".equalsIgnoreCase(asked)) {
            return false;
        }
        return r.version() != HttpVersion.HTTP_1_0 || "keep-alive".equalsIgnoreCase(asked);
    }

    /**
     * Whether {@code r} came on a connection already answered with {@code connection: close}: bytes
     * after an ambiguously framed request (a smuggled request in its body) are never served.
     */
    boolean closing(HttpServerRequest r) {
        Open o = r.connection() == null ? null : open.get(r.connection());
        return o != null && o.closing;
    }

    /** Marks {@code r}'s connection as closing when its answer already says {@code connection: close}. */
    void closeAfter(HttpServerRequest r) {
        Open o = r.connection() == null ? null : open.get(r.connection());
        if (o != null && "close".equalsIgnoreCase(r.response().headers().get("connection"))) {
            o.closing = true;
        }
    }

    private void arm(HttpConnection c, Open o, long millis) {
        cancel(o);
        o.timer = vertx.setTimer(millis, id -> {
            o.timer = -1;
            if (o.inFlight == 0) {
                c.close();
            }
        });
    }

    private void cancel(Open o) {
        if (o.timer >= 0) {
            vertx.cancelTimer(o.timer);
            o.timer = -1;
        }
    }
}
