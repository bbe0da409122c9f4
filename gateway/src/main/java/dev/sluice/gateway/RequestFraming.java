package dev.sluice.gateway;

import dev.sluice.gateway.http.MalformedRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A client connection's HTTP/1.x request decoder: Vert.x's own, with three framing decisions
 * taken where only the decoder can see them, each costing nothing on a well-formed request.
 * <ul>
 *   <li>A {@code Content-Length} sent beside {@code Transfer-Encoding: chunked} is kept (Netty's
 *       decoder drops it), so that {@link MalformedRequest#ofHead} sees both and answers 400
 *       {@code ambiguous_framing} and closes (RFC 9112 section 6.3).</li>
 *   <li>A chunk whose size line cannot be read ends the body instead of failing the connection,
 *       and the request is marked ({@link MalformedRequest#BAD_CHUNK_MARK}): its route answers 400
 *       {@code invalid_chunked_body} in its own shape and the connection is closed. The decoder
 *       reads nothing more from that connection, so no bytes after the bad chunk are served.</li>
 *   <li>A request line naming a version other than HTTP/1.0 or 1.1 fails the head (answered 505 by
 *       {@link MalformedRequest#of}); the HTTP/2 connection preface is answered in HTTP/2, with an
 *       empty SETTINGS frame and a GOAWAY saying HTTP/1.1 is required, then closed: h2c is off.</li>
 * </ul>
 * Installed in place of Vert.x's decoder by {@link ClientConnections#connected}, before the
 * connection has read anything. One per connection, confined to its event loop.
 */
final class RequestFraming extends VertxHttpRequestDecoder {

    /** What an HTTP/2 client sends first (RFC 9113 section 3.4), up to the end of its request line. */
    static final byte[] H2_PREFACE = "PRI * HTTP/2.0\r\n".getBytes(StandardCharsets.US_ASCII);

    /** The debug text of the GOAWAY sent to an HTTP/2 client. */
    static final String H2C_OFF = "h2c is off on this port; speak HTTP/1.1";

    /** HTTP/2's error code for "use HTTP/1.1 instead" (RFC 9113 section 7). */
    static final int HTTP_1_1_REQUIRED = 0xd;

    private static final MalformedRequest.UnsupportedVersion UNSUPPORTED_VERSION = new MalformedRequest.UnsupportedVersion();

    /** Until the connection's first bytes are known not to be the HTTP/2 preface. */
    private boolean prefaceUnknown = true;
    /** The request whose body is being decoded, for the mark a bad chunk leaves on it. */
    private HttpMessage current;

    RequestFraming(HttpServerOptions options) {
        super(options);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (prefaceUnknown) {
            int seen = Math.min(in.readableBytes(), H2_PREFACE.length);
            for (int i = 0; i < seen; i++) {
                if (in.getByte(in.readerIndex() + i) != H2_PREFACE[i]) {
                    prefaceUnknown = false;
                    break;
                }
            }
            if (prefaceUnknown) {
                if (seen < H2_PREFACE.length) {
                    return; // wait for more: the head timeout bounds a client that stops here
                }
                in.skipBytes(in.readableBytes());
                refuseHttp2(ctx);
                return;
            }
        }
        int before = out.size();
        super.decode(ctx, in, out);
        for (int i = before; i < out.size(); i++) {
            if (out.get(i) instanceof HttpContent c && !(c instanceof HttpMessage) && c.decoderResult().isFailure()) {
                // Netty's decoder has stopped reading this connection; the request ends here, marked.
                c.release();
                out.set(i, LastHttpContent.EMPTY_LAST_CONTENT);
                if (current != null) {
                    current.headers().set(MalformedRequest.BAD_CHUNK_MARK, "1");
                }
            }
        }
    }

    @Override
    protected HttpMessage createMessage(String[] initialLine) {
        HttpMessage m = super.createMessage(initialLine);
        HttpVersion v = m.protocolVersion();
        if (v != HttpVersion.HTTP_1_1 && v != HttpVersion.HTTP_1_0) {
            throw UNSUPPORTED_VERSION;
        }
        current = m;
        return m;
    }

    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
        String length = message.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        super.handleTransferEncodingChunkedWithContentLength(message);
        message.headers().set(HttpHeaderNames.CONTENT_LENGTH, length);
    }

    /** An empty SETTINGS frame (the server's preface), then GOAWAY(HTTP_1_1_REQUIRED) with a reason; then close. */
    private static void refuseHttp2(ChannelHandlerContext ctx) {
        byte[] debug = H2C_OFF.getBytes(StandardCharsets.US_ASCII);
        ByteBuf frames = Unpooled.buffer(9 + 9 + 8 + debug.length);
        frames.writeMedium(0).writeByte(0x4).writeByte(0).writeInt(0); // SETTINGS, no parameters
        frames.writeMedium(8 + debug.length).writeByte(0x7).writeByte(0).writeInt(0); // GOAWAY on stream 0
        frames.writeInt(0).writeInt(HTTP_1_1_REQUIRED).writeBytes(debug);
        ctx.writeAndFlush(frames).addListener(ChannelFutureListener.CLOSE);
    }
}
