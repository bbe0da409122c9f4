package dev.sluice.gateway.http;

import io.vertx.core.http.HttpMethod;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * A matched endpoint.
 *
 * @param operation what is asked
 * @param pathModel the model named in the path (Gemini), else empty: the model is in the body
 */
public record Route(Operation operation, Optional<String> pathModel) {

    private static final String GEMINI_PREFIX = "/v1beta/models/";

    public Route {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(pathModel, "pathModel");
    }

    /** The route for {@code method} and {@code path} (no query), if the gateway serves it. */
    public static Optional<Route> match(HttpMethod method, String path) {
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (method == HttpMethod.GET) {
            return switch (path) {
                case "/v1/models" -> of(Operation.OPENAI_MODELS);
                case "/healthz" -> of(Operation.HEALTH);
                case "/readyz" -> of(Operation.READY);
                default -> Optional.empty();
            };
        }
        if (method != HttpMethod.POST) {
            return Optional.empty();
        }
        switch (path) {
            case "/v1/chat/completions":
                return of(Operation.OPENAI_CHAT);
            case "/v1/completions":
                return of(Operation.OPENAI_COMPLETIONS);
            case "/v1/embeddings":
                return of(Operation.OPENAI_EMBEDDINGS);
            case "/v1/responses":
                return of(Operation.OPENAI_RESPONSES);
            case "/v1/messages":
                return of(Operation.ANTHROPIC_MESSAGES);
            case "/v1/messages/count_tokens":
                return of(Operation.ANTHROPIC_COUNT_TOKENS);
            default:
                break;
        }
        if (path.startsWith(GEMINI_PREFIX)) {
            String rest = path.substring(GEMINI_PREFIX.length());
            int colon = rest.lastIndexOf(':');
            if (colon <= 0) {
                return Optional.empty();
            }
            String model = URLDecoder.decode(rest.substring(0, colon), StandardCharsets.UTF_8);
            Operation op = switch (rest.substring(colon + 1)) {
                case "generateContent" -> Operation.GEMINI_GENERATE;
                case "streamGenerateContent" -> Operation.GEMINI_STREAM_GENERATE;
                case "countTokens" -> Operation.GEMINI_COUNT_TOKENS;
                default -> null;
            };
            return op == null || model.isBlank() ? Optional.empty() : Optional.of(new Route(op, Optional.of(model)));
        }
        return Optional.empty();
    }

    private static Optional<Route> of(Operation op) {
        return Optional.of(new Route(op, Optional.empty()));
    }

    /** The family whose error shape an unmatched path gets: guessed from its prefix. */
    public static ApiFamily familyOf(String path) {
        if (path.startsWith("/v1beta/")) {
            return ApiFamily.GEMINI;
        }
        return path.startsWith("/v1/messages") ? ApiFamily.ANTHROPIC : ApiFamily.OPENAI;
    }
}
