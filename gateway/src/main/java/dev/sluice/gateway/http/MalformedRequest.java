package dev.sluice.gateway.http;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpVersion;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Why a request is answered before anything of it is served: its head could not be read, its
 * framing is ambiguous, its target is not a well-formed URI, or its connection is over a cap.
 * Such a request still gets an error in its provider's shape, and is counted like every other
 * answer.
 *
 * @param status 400, 414, 431, 503 or 505
 * @param code   a short machine-readable name for it
 * @param reason what was wrong, one sentence for the error body
 * @param close  whether the connection is closed after the answer: where the bytes that follow
 *               cannot be trusted to start the next request
 */
public record MalformedRequest(int status, String code, String reason, boolean close) {

    /** A connection beyond {@code server.max_connections} or {@code server.max_connections_per_address}. */
    public static final MalformedRequest TOO_MANY_CONNECTIONS = new MalformedRequest(503, "too_many_connections",
            "This gateway holds as many connections as it allows from your address or in total; close idle "
                    + "connections or retry shortly.", true);

    /**
     * The header the request decoder sets on a request whose chunked body broke off at a chunk size
     * it could not read: the body ends there and the request is answered {@link #BAD_CHUNK}. A client
     * that sends it itself only refuses its own request.
     */
    public static final String BAD_CHUNK_MARK = "x-sluice-bad-chunk";

    /** A chunked body whose chunk size line is not hex digits (RFC 9112 section 7.1): nothing after it can be read. */
    public static final MalformedRequest BAD_CHUNK = new MalformedRequest(400, "invalid_chunked_body",
            "The request body's chunked coding is broken (a chunk size that is not hexadecimal digits); nothing after "
                    + "it was read.", true);

    /**
     * The decoder's reason for a head naming a version other than HTTP/1.0 or 1.1; stackless and
     * shared, as it is the client's doing.
     */
    public static final class UnsupportedVersion extends RuntimeException {
        public UnsupportedVersion() {
            super("HTTP version not supported", null, false, false);
        }
    }

    /** What {@code result} says was wrong with the head, or empty when it was read. */
    public static Optional<MalformedRequest> of(DecoderResult result) {
        if (result == null || !result.isFailure()) {
            return Optional.empty();
        }
        Throwable cause = result.cause();
        if (cause instanceof TooLongHttpHeaderException) {
            return Optional.of(new MalformedRequest(431, "headers_too_large",
                    "The request headers are larger than this gateway accepts (server.max_header_bytes).", true));
        }
        if (cause instanceof UnsupportedVersion) {
            return Optional.of(new MalformedRequest(505, "http_version_not_supported",
                    "This gateway speaks HTTP/1.1 (and 1.0) only; HTTP/2 over cleartext (h2c) is off.", true));
        }
        if (cause instanceof TooLongHttpLineException) {
            return Optional.of(new MalformedRequest(414, "request_line_too_long",
                    "The request line is longer than this gateway accepts.", true));
        }
        return Optional.of(new MalformedRequest(400, "invalid_http", "The request is not valid HTTP/1.1.", true));
    }

    /**
     * What is wrong with a head the decoder accepted, or empty when nothing is. Framing first
     * (RFC 9112 sections 3.2 and 6): an HTTP/1.1 request names exactly one Host; a transfer coding
     * other than a lone {@code chunked}, or one beside a Content-Length, leaves the body's end
     * ambiguous, so the request is refused and its connection closed rather than letting the body
     * be read as a next request. Then the target: every percent escape is two hex digits and the
     * escaped bytes of the path are UTF-8.
     *
     * @param uri the request target as sent (path and query, not decoded)
     */
    public static Optional<MalformedRequest> ofHead(HttpVersion version, MultiMap headers, String uri) {
        if (version == HttpVersion.HTTP_1_1) {
            List<String> hosts = headers.getAll("host");
            if (hosts.size() != 1 || hosts.get(0).isBlank()) {
                return Optional.of(new MalformedRequest(400, "invalid_host", hosts.isEmpty()
                        ? "An HTTP/1.1 request must carry a Host header." : "The request must carry exactly one Host header.",
                        true));
            }
        }
        List<String> codings = headers.getAll("transfer-encoding");
        if (!codings.isEmpty()) {
            if (version != HttpVersion.HTTP_1_1 || codings.size() != 1
                    || !codings.get(0).strip().toLowerCase(Locale.ROOT).equals("chunked")) {
                return Optional.of(new MalformedRequest(400, "unsupported_transfer_encoding",
                        "The only transfer coding this gateway reads is a single 'chunked' on HTTP/1.1.", true));
            }
            if (headers.contains("content-length")) {
                return Optional.of(new MalformedRequest(400, "ambiguous_framing",
                        "The request carries both Transfer-Encoding and Content-Length; send one.", true));
            }
        }
        return target(uri == null ? "" : uri);
    }

    private static Optional<MalformedRequest> target(String uri) {
        int query = uri.indexOf('?');
        int pathEnd = query < 0 ? uri.length() : query;
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return invalidTarget("The request target holds a character that must be percent-escaped.");
            }
            if (c == '%' && (i + 2 >= uri.length() || hex(uri.charAt(i + 1)) < 0 || hex(uri.charAt(i + 2)) < 0)) {
                return invalidTarget("The request target holds a '%' that is not followed by two hex digits.");
            }
        }
        if (uri.substring(0, pathEnd).indexOf('%') >= 0 && !utf8(uri.substring(0, pathEnd))) {
            return invalidTarget("The request path's escaped bytes are not UTF-8.");
        }
        return Optional.empty();
    }

    private static Optional<MalformedRequest> invalidTarget(String reason) {
        return Optional.of(new MalformedRequest(400, "invalid_path", reason, false));
    }

    /** Whether the bytes {@code path} escapes (already checked to be well formed) decode as UTF-8. */
    private static boolean utf8(String path) {
        ByteBuffer bytes = ByteBuffer.allocate(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%') {
                bytes.put((byte) (hex(path.charAt(i + 1)) * 16 + hex(path.charAt(i + 2))));
                i += 2;
            } else {
                bytes.put((byte) c);
            }
        }
        bytes.flip();
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes);
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }
}
