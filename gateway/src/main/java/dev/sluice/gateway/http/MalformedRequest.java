package dev.sluice.gateway.http;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.Optional;

/**
 * Why a request's head could not be read, and how to say so: such a request still gets an error
 * in its provider's shape, and is counted like every other answer.
 *
 * @param status 400, 414 or 431
 * @param code   a short machine-readable name for it
 * @param reason what was wrong, one sentence for the error body
 */
public record MalformedRequest(int status, String code, String reason) {

    /** What {@code result} says was wrong with the head, or empty when it was read. */
    public static Optional<MalformedRequest> of(DecoderResult result) {
        if (result == null || !result.isFailure()) {
            return Optional.empty();
        }
        Throwable cause = result.cause();
        if (cause instanceof TooLongHttpHeaderException) {
            return Optional.of(new MalformedRequest(431, "headers_too_large",
                    "The request headers are larger than this gateway accepts (server.max_header_bytes)."));
        }
        if (cause instanceof TooLongHttpLineException) {
            return Optional.of(new MalformedRequest(414, "request_line_too_long",
                    "The request line is longer than this gateway accepts."));
        }
        return Optional.of(new MalformedRequest(400, "invalid_http", "The request is not valid HTTP/1.1."));
    }
}
