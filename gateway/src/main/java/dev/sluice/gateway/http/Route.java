package dev.sluice.gateway.http;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * A matched endpoint.
 *
 * <p>Paths are matched as each SDK builds them from the base URL it is given: Anthropic's
 * {@code /v1/messages} also as {@code /messages} (a base URL without {@code /v1} given to a client
 * that appends only {@code /messages}, such as {@code @ai-sdk/anthropic}) and as
 * {@code /v1/v1/messages} (one with {@code /v1} given to the official SDKs, which append
 * {@code /v1/messages}); Gemini's routes under {@code /v1beta} and {@code /v1} alike. A path that
 * more than one family uses ({@code GET /v1/models}, {@code GET /v1/models/{id}}) is the family's
 * that the request's headers name ({@link #dialect}). Azure OpenAI's deployment paths
 * ({@code /openai/deployments/{name}/chat/completions}, {@code .../completions},
 * {@code .../embeddings}) are the OpenAI operations with the deployment name as the path's model,
 * which names a profile, so that an Azure SDK given Sluice as its endpoint works unchanged.
 *
 * @param operation what is asked
 * @param pathModel the model named in the path (Gemini, an Azure deployment path, and the
 *        catalogue's single model), else empty: the model is in the body
 * @param azure whether the path is an Azure OpenAI deployment path, which must carry a valid
 *        {@code api-version} query parameter ({@link #azureApiVersionProblem})
 */
public record Route(Operation operation, Optional<String> pathModel, boolean azure) {

    /** The Azure OpenAI path prefix an Azure SDK appends to its endpoint. */
    private static final String AZURE_DEPLOYMENTS = "/openai/deployments/";

    /** An Azure {@code api-version}: a date, optionally {@code -preview} (2024-10-21, 2025-04-01-preview). */
    private static final java.util.regex.Pattern API_VERSION =
            java.util.regex.Pattern.compile("\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(-preview)?");

    public Route {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(pathModel, "pathModel");
    }

    /** A route of a path that is not Azure's. */
    public Route(Operation operation, Optional<String> pathModel) {
        this(operation, pathModel, false);
    }

    /** The route for {@code method} and {@code path} (no query) of a request in the OpenAI dialect. */
    public static Optional<Route> match(HttpMethod method, String path) {
        return match(method, path, ApiFamily.OPENAI);
    }

    /**
     * The route for {@code method} and {@code path} (no query), if the gateway serves it;
     * {@code dialect} (see {@link #dialect}) decides the paths several families share.
     */
    public static Optional<Route> match(HttpMethod method, String path, ApiFamily dialect) {
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.startsWith("/v1beta/") || (path.startsWith("/v1/models/") && path.indexOf(':') > 0)) {
            return gemini(method, path);
        }
        if (method == HttpMethod.GET) {
            switch (path) {
                case "/healthz":
                    return of(Operation.HEALTH);
                case "/readyz":
                    return of(Operation.READY);
                case "/v1/models":
                    return of(switch (dialect) {
                        case OPENAI -> Operation.OPENAI_MODELS;
                        case ANTHROPIC -> Operation.ANTHROPIC_MODELS;
                        case GEMINI -> Operation.GEMINI_MODELS;
                    });
                default:
                    break;
            }
            String prefix = "/v1/models/";
            if (path.startsWith(prefix) && path.length() > prefix.length()) {
                Operation op = switch (dialect) {
                    case OPENAI -> Operation.OPENAI_MODEL;
                    case ANTHROPIC -> Operation.ANTHROPIC_MODEL;
                    case GEMINI -> Operation.GEMINI_MODEL;
                };
                return Optional.of(new Route(op, Optional.of(decode(path.substring(prefix.length())))));
            }
            return Optional.empty();
        }
        if (method != HttpMethod.POST) {
            return Optional.empty();
        }
        if (path.startsWith(AZURE_DEPLOYMENTS)) {
            return azure(path.substring(AZURE_DEPLOYMENTS.length()));
        }
        return switch (path) {
            case "/v1/chat/completions" -> of(Operation.OPENAI_CHAT);
            case "/v1/completions" -> of(Operation.OPENAI_COMPLETIONS);
            case "/v1/embeddings" -> of(Operation.OPENAI_EMBEDDINGS);
            case "/v1/responses" -> of(Operation.OPENAI_RESPONSES);
            case "/v1/messages", "/messages", "/v1/v1/messages" -> of(Operation.ANTHROPIC_MESSAGES);
            case "/v1/messages/count_tokens", "/messages/count_tokens", "/v1/v1/messages/count_tokens" ->
                    of(Operation.ANTHROPIC_COUNT_TOKENS);
            default -> Optional.empty();
        };
    }

    /** Gemini's routes, under {@code /v1beta/} or {@code /v1/}: models.list, models.get and the model methods. */
    private static Optional<Route> gemini(HttpMethod method, String path) {
        String rest = path.substring(path.indexOf('/', 1));
        if (rest.equals("/models")) {
            return method == HttpMethod.GET ? of(Operation.GEMINI_MODELS) : Optional.empty();
        }
        if (!rest.startsWith("/models/") || rest.length() == "/models/".length()) {
            return Optional.empty();
        }
        rest = rest.substring("/models/".length());
        int colon = rest.lastIndexOf(':');
        if (method == HttpMethod.GET) {
            return colon >= 0 ? Optional.empty()
                    : Optional.of(new Route(Operation.GEMINI_MODEL, Optional.of(decode(rest))));
        }
        if (method != HttpMethod.POST || colon <= 0) {
            return Optional.empty();
        }
        String model = decode(rest.substring(0, colon));
        Operation op = switch (rest.substring(colon + 1)) {
            case "generateContent" -> Operation.GEMINI_GENERATE;
            case "streamGenerateContent" -> Operation.GEMINI_STREAM_GENERATE;
            case "countTokens" -> Operation.GEMINI_COUNT_TOKENS;
            case "embedContent" -> Operation.GEMINI_EMBED;
            case "batchEmbedContents" -> Operation.GEMINI_BATCH_EMBED;
            default -> null;
        };
        return op == null || model.isBlank() ? Optional.empty() : Optional.of(new Route(op, Optional.of(model)));
    }

    /** An Azure deployment path after {@code /openai/deployments/}: {@code {name}/chat/completions} and the like. */
    private static Optional<Route> azure(String rest) {
        int slash = rest.indexOf('/');
        if (slash <= 0) {
            return Optional.empty();
        }
        Operation op = switch (rest.substring(slash + 1)) {
            case "chat/completions" -> Operation.OPENAI_CHAT;
            case "completions" -> Operation.OPENAI_COMPLETIONS;
            case "embeddings" -> Operation.OPENAI_EMBEDDINGS;
            default -> null;
        };
        String name = decode(rest.substring(0, slash));
        return op == null || name.isBlank() ? Optional.empty() : Optional.of(new Route(op, Optional.of(name), true));
    }

    /**
     * What is wrong with an Azure request's {@code api-version} query parameter (Azure's SDKs always
     * send one, and Azure refuses a request without one), or empty when it is well formed.
     *
     * @param query the raw query string, or null
     */
    public static Optional<String> azureApiVersionProblem(String query) {
        String version = null;
        int found = 0;
        if (query != null) {
            for (String p : query.split("&")) {
                if (p.startsWith("api-version=")) {
                    try {
                        version = decode(p.substring("api-version=".length()));
                    } catch (IllegalArgumentException badEscape) {
                        version = p.substring("api-version=".length());
                    }
                    found++;
                }
            }
        }
        if (found == 0 || version.isEmpty()) {
            return Optional.of("The request has no 'api-version' query parameter; Azure OpenAI paths need one, "
                    + "such as ?api-version=2024-10-21.");
        }
        if (found > 1) {
            return Optional.of("The request has " + found + " 'api-version' query parameters; send one.");
        }
        if (!API_VERSION.matcher(version).matches()) {
            return Optional.of("The 'api-version' query parameter '" + printable(version) + "' is not an API "
                    + "version (expected: a date such as 2024-10-21, optionally followed by -preview).");
        }
        return Optional.empty();
    }

    /** At most 40 characters of a client's value, controls replaced, for an error message. */
    private static String printable(String s) {
        String cut = s.length() > 40 ? s.substring(0, 40) + "..." : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static Optional<Route> of(Operation op) {
        return Optional.of(new Route(op, Optional.empty()));
    }

    /**
     * The family a request speaks, judged from what its SDK always sends: a {@code /v1beta/} path,
     * Gemini; an {@code anthropic-version} header, Anthropic; an {@code x-goog-api-key} header or a
     * {@code key} query parameter, Gemini; an {@code x-api-key} header or a messages path,
     * Anthropic; anything else, OpenAI. It decides the error shape of a request whose route is
     * unknown or refused before its route's own family is known, and the family of shared paths.
     *
     * @param query the raw query string, or null
     */
    public static ApiFamily dialect(String path, MultiMap headers, String query) {
        if (path.startsWith("/v1beta/")) {
            return ApiFamily.GEMINI;
        }
        if (headers.contains("anthropic-version")) {
            return ApiFamily.ANTHROPIC;
        }
        if (headers.contains("x-goog-api-key") || hasKeyParameter(query)) {
            return ApiFamily.GEMINI;
        }
        if (headers.contains("x-api-key") || path.startsWith("/v1/messages") || path.startsWith("/messages")
                || path.startsWith("/v1/v1/messages")) {
            return ApiFamily.ANTHROPIC;
        }
        if (path.startsWith("/v1/models/") && path.indexOf(':') > 0) {
            return ApiFamily.GEMINI;
        }
        return ApiFamily.OPENAI;
    }

    /** The family whose error shape an unmatched path gets when nothing but its path is known. */
    public static ApiFamily familyOf(String path) {
        return dialect(path == null ? "" : path, MultiMap.caseInsensitiveMultiMap(), null);
    }

    private static boolean hasKeyParameter(String query) {
        if (query == null) {
            return false;
        }
        for (String p : query.split("&")) {
            if (p.startsWith("key=") && p.length() > 4) {
                return true;
            }
        }
        return false;
    }
}
