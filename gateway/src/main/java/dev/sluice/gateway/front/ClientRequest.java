package dev.sluice.gateway.front;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * A client's request as the gateway serves it: its head at once, its body as it arrives. Used on
 * its connection's event loop only.
 */
public final class ClientRequest {

    /**
     * Why a request could not be read, and the status that says so.
     *
     * @param status 400, 414 or 431
     * @param code   a short machine-readable name for it
     * @param reason what was wrong, for the error body
     */
    public record Malformed(int status, String code, String reason) {}

    private final FrontConnection connection;
    private final HttpRequest head;
    private final ClientResponse response;
    private final boolean keepAlive;
    private String path;
    private String query;
    private QueryStringDecoder params;
    private Handler<ByteBuf> bodyHandler;
    private Handler<Void> endHandler;
    private boolean bodyEnded;

    ClientRequest(FrontConnection connection, HttpRequest head) {
        this.connection = connection;
        this.head = head;
        this.keepAlive = head.decoderResult().isSuccess() && HttpUtil.isKeepAlive(head);
        this.response = new ClientResponse(connection, this);
    }

    /** The Vert.x context of the loop serving this request. */
    public Context context() {
        return connection.context;
    }

    public HttpMethod method() {
        return head.method();
    }

    /** The path, without the query, as sent (not percent-decoded). */
    public String path() {
        if (path == null) {
            splitUri();
        }
        return path;
    }

    /** The query string without its {@code ?}, or empty. */
    public Optional<String> query() {
        if (path == null) {
            splitUri();
        }
        return Optional.ofNullable(query);
    }

    /** The first value of query parameter {@code name}, decoded. */
    public Optional<String> param(String name) {
        if (query().isEmpty()) {
            return Optional.empty();
        }
        if (params == null) {
            params = new QueryStringDecoder(query, StandardCharsets.UTF_8, false);
        }
        List<String> values = params.parameters().get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    public HttpVersion protocolVersion() {
        return head.protocolVersion();
    }

    public HttpHeaders headers() {
        return head.headers();
    }

    /** The first value of header {@code name} (any case), or null. */
    public String header(CharSequence name) {
        return head.headers().get(name);
    }

    /** Why the request could not be read, when it could not; then only an error answer is possible. */
    public Optional<Malformed> malformed() {
        if (head.decoderResult().isSuccess()) {
            return Optional.empty();
        }
        Throwable cause = head.decoderResult().cause();
        if (cause instanceof TooLongHttpHeaderException) {
            return Optional.of(new Malformed(431, "headers_too_large", "The request headers are larger than this gateway accepts."));
        }
        if (cause instanceof TooLongHttpLineException) {
            return Optional.of(new Malformed(414, "request_line_too_long", "The request line is longer than this gateway accepts."));
        }
        String detail = cause instanceof TooLongFrameException || cause == null || cause.getMessage() == null ? ""
                : ": " + cause.getMessage();
        return Optional.of(new Malformed(400, "invalid_http", "The request is not valid HTTP/1.1" + detail + "."));
    }

    /** Whether the client asked to keep the connection open after this request. */
    boolean keepAlive() {
        return keepAlive;
    }

    public ClientResponse response() {
        return response;
    }

    /**
     * Receives the body's pieces as they arrive. A piece is valid only during the call: copy what
     * is kept. Pieces that arrive after the response has ended still come here, to be dropped.
     */
    public void bodyHandler(Handler<ByteBuf> h) {
        this.bodyHandler = h;
    }

    /** Called once the whole body has arrived. */
    public void endHandler(Handler<Void> h) {
        this.endHandler = h;
    }

    /** Closes the connection, whatever is in flight (a client sending a refused body for too long). */
    public void closeConnection() {
        connection.closeNow();
    }

    void content(ByteBuf piece, boolean last) {
        if (bodyEnded) {
            return;
        }
        if (piece.isReadable() && bodyHandler != null) {
            bodyHandler.handle(piece);
        }
        if (last) {
            bodyEnded = true;
            if (endHandler != null) {
                endHandler.handle(null);
            }
            if (response.ended()) {
                connection.ended(this);
            }
        }
    }

    boolean bodyEnded() {
        return bodyEnded;
    }

    void connectionClosed() {
        response.connectionClosed();
    }

    private void splitUri() {
        String uri = head.uri();
        int start = 0;
        if (!uri.startsWith("/")) {
            // absolute-form ("http://host/path"): the path starts after the authority
            int scheme = uri.indexOf("://");
            int slash = scheme < 0 ? -1 : uri.indexOf('/', scheme + 3);
            start = slash < 0 ? uri.length() : slash;
        }
        int q = uri.indexOf('?', start);
        int hash = uri.indexOf('#', start);
        int end = hash < 0 ? uri.length() : hash;
        if (q >= 0 && q < end) {
            path = uri.substring(start, q);
            query = uri.substring(q + 1, end);
        } else {
            path = uri.substring(start, end);
        }
        if (path.isEmpty()) {
            path = "/";
        }
    }
}
