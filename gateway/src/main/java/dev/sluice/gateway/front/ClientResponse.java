package dev.sluice.gateway.front;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * The answer to a {@link ClientRequest}: whole ({@link #end(Buffer)}) or streamed in chunks
 * ({@link #setChunked}, {@link #write}, {@link #end()}). The head goes out with the first write,
 * so headers may be set until then. Used on its connection's event loop only.
 */
public final class ClientResponse {

    private final FrontConnection connection;
    private final ClientRequest request;
    /**
     * Not validated: the names are the gateway's own, and the values either its own or read from a
     * provider's response by Netty's decoder, which cannot yield a line break inside a value.
     */
    private static final DefaultHttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory()
            .withNameValidation(false).withValueValidation(false);

    private final HttpHeaders headers = HEADERS.newHeaders();
    private HttpResponseStatus status = HttpResponseStatus.OK;
    private boolean chunked;
    private boolean headWritten;
    private boolean ended;
    private boolean closeAfter;
    private Handler<Void> drainHandler;
    private Handler<Void> closeHandler;

    ClientResponse(FrontConnection connection, ClientRequest request) {
        this.connection = connection;
        this.request = request;
    }

    public HttpHeaders headers() {
        return headers;
    }

    /** Sets header {@code name}, replacing any value it had. */
    public ClientResponse putHeader(CharSequence name, CharSequence value) {
        headers.set(name, value);
        return this;
    }

    public ClientResponse setStatusCode(int code) {
        status = HttpResponseStatus.valueOf(code);
        return this;
    }

    /** Streams the body in chunks ({@code Transfer-Encoding: chunked}) instead of sending it whole. */
    public ClientResponse setChunked(boolean on) {
        chunked = on;
        return this;
    }

    public boolean ended() {
        return ended;
    }

    /** Sends {@code body} as the whole answer, or as the stream's last chunk. */
    public void end(Buffer body) {
        if (ended) {
            return;
        }
        ended = true;
        ByteBuf content = bytesOf(body);
        if (headWritten) {
            finish(content.isReadable() ? new DefaultLastHttpContent(content) : LastHttpContent.EMPTY_LAST_CONTENT);
            return;
        }
        prepareHead();
        if (chunked) {
            connection.channel.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, status, headers));
            headWritten = true;
            finish(content.isReadable() ? new DefaultLastHttpContent(content) : LastHttpContent.EMPTY_LAST_CONTENT);
            return;
        }
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        headWritten = true;
        finish(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content, headers, EmptyHttpHeaders.INSTANCE));
    }

    /** Ends the stream (or sends an empty answer). */
    public void end() {
        end(Buffer.buffer(0));
    }

    /** Sends the next chunk of a streamed answer (the head first, with the first chunk). */
    public void write(Buffer chunk) {
        if (ended) {
            return;
        }
        if (!headWritten) {
            chunked = true;
            prepareHead();
            connection.channel.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, status, headers));
            headWritten = true;
        }
        connection.channel.writeAndFlush(new DefaultHttpContent(bytesOf(chunk)), connection.channel.voidPromise());
    }

    /** Whether the client is behind: more written than the socket has taken. */
    public boolean writeQueueFull() {
        return !connection.channel.isWritable();
    }

    /** Called once the client has caught up after {@link #writeQueueFull()}. */
    public void drainHandler(Handler<Void> h) {
        this.drainHandler = h;
    }

    /** Called if the connection closes before this answer has ended. */
    public void closeHandler(Handler<Void> h) {
        this.closeHandler = h;
    }

    /** Breaks the answer off by closing the connection: the client sees a truncated response. */
    public void reset() {
        ended = true;
        connection.closeNow();
    }

    void drained() {
        Handler<Void> h = drainHandler;
        if (h != null) {
            drainHandler = null;
            h.handle(null);
        }
    }

    void connectionClosed() {
        if (!ended && closeHandler != null) {
            closeHandler.handle(null);
        }
    }

    private void prepareHead() {
        boolean http10 = request.protocolVersion() == HttpVersion.HTTP_1_0;
        if (chunked) {
            headers.remove(HttpHeaderNames.CONTENT_LENGTH);
            if (!http10) {
                headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            }
        }
        // An HTTP/1.0 client cannot read chunks: its stream is sent as it comes and ends with the connection.
        closeAfter = !request.keepAlive() || connection.closing() || (chunked && http10)
                || headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
        if (closeAfter) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
    }

    private void finish(Object last) {
        if (closeAfter) {
            connection.channel.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        connection.channel.writeAndFlush(last, connection.channel.voidPromise());
        if (request.bodyEnded()) {
            connection.ended(request);
        }
    }

    /** Netty releases what it writes; a Vert.x buffer may be written again, so it is lent, not given. */
    private static ByteBuf bytesOf(Buffer b) {
        return b.length() == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.unreleasableBuffer(((BufferInternal) b).getByteBuf());
    }
}
