package dev.sluice.mock.http;

import io.vertx.core.http.HttpMethod;
import java.util.Optional;

/**
 * A provider endpoint a request reached.
 *
 * @param endpoint what it does
 * @param pathModel the model or deployment named in the path (Azure, Gemini), empty otherwise
 * @param needsApiVersion whether the {@code api-version} query parameter is required (Azure deployments)
 */
record Route(Endpoint endpoint, Optional<String> pathModel, boolean needsApiVersion) {

    enum Endpoint {
        CHAT(true),
        COMPLETIONS(true),
        EMBEDDINGS(true),
        RESPONSES(true),
        MODELS(false),
        MESSAGES(true),
        COUNT_TOKENS(false),
        GENERATE(true),
        STREAM_GENERATE(true),
        GEMINI_COUNT_TOKENS(false),
        EMBED_CONTENT(true),
        BATCH_EMBED_CONTENTS(true),
        /** Gemini's OpenAI-compatible chat completions. */
        GEMINI_COMPAT_CHAT(true);

        private final boolean admitted;

        Endpoint(boolean admitted) {
            this.admitted = admitted;
        }

        /** Whether it embeds (no output tokens, no stream). */
        boolean embeds() {
            return this == EMBEDDINGS || this == EMBED_CONTENT || this == BATCH_EMBED_CONTENTS;
        }

        /** Whether the endpoint goes through the limit model. */
        boolean admitted() {
            return admitted;
        }
    }

    private static Route of(Endpoint e) {
        return new Route(e, Optional.empty(), false);
    }

    static Optional<Route> match(Flavour flavour, HttpMethod method, String path) {
        boolean post = method.equals(HttpMethod.POST);
        boolean get = method.equals(HttpMethod.GET);
        return switch (flavour) {
            case OPENAI -> openAi(post, get, path);
            case AZURE_OPENAI -> azure(post, path);
            case ANTHROPIC -> anthropic(post, path);
            case GEMINI -> gemini(post, get, path);
        };
    }

    private static Optional<Route> openAi(boolean post, boolean get, String path) {
        if (get) {
            return path.equals("/v1/models") ? Optional.of(of(Endpoint.MODELS)) : Optional.empty();
        }
        if (!post) {
            return Optional.empty();
        }
        return openAiPost(path.startsWith("/v1/") ? path.substring(3) : "");
    }

    /** The OpenAI operations by their path after the version prefix. */
    private static Optional<Route> openAiPost(String operation) {
        return switch (operation) {
            case "/chat/completions" -> Optional.of(of(Endpoint.CHAT));
            case "/completions" -> Optional.of(of(Endpoint.COMPLETIONS));
            case "/embeddings" -> Optional.of(of(Endpoint.EMBEDDINGS));
            case "/responses" -> Optional.of(of(Endpoint.RESPONSES));
            default -> Optional.empty();
        };
    }

    private static Optional<Route> azure(boolean post, String path) {
        if (!post) {
            return Optional.empty();
        }
        String deployments = "/openai/deployments/";
        if (path.startsWith(deployments)) {
            String rest = path.substring(deployments.length());
            int slash = rest.indexOf('/');
            if (slash <= 0) {
                return Optional.empty();
            }
            String deployment = rest.substring(0, slash);
            return openAiPost(rest.substring(slash))
                    .filter(r -> r.endpoint() != Endpoint.RESPONSES)
                    .map(r -> new Route(r.endpoint(), Optional.of(deployment), true));
        }
        if (path.equals("/openai/responses")) {
            return Optional.of(new Route(Endpoint.RESPONSES, Optional.empty(), true));
        }
        if (path.startsWith("/openai/v1/")) {
            return openAiPost(path.substring("/openai/v1".length()));
        }
        return Optional.empty();
    }

    private static Optional<Route> anthropic(boolean post, String path) {
        if (!post) {
            return Optional.empty();
        }
        return switch (path) {
            case "/v1/messages" -> Optional.of(of(Endpoint.MESSAGES));
            case "/v1/messages/count_tokens" -> Optional.of(of(Endpoint.COUNT_TOKENS));
            default -> Optional.empty();
        };
    }

    private static Optional<Route> gemini(boolean post, boolean get, String path) {
        if (post && path.equals("/v1beta/openai/chat/completions")) {
            return Optional.of(of(Endpoint.GEMINI_COMPAT_CHAT));
        }
        String prefix = path.startsWith("/v1beta/models/") ? "/v1beta/models/"
                : path.startsWith("/v1/models/") ? "/v1/models/" : null;
        if (!post || prefix == null) {
            return get && (path.equals("/v1beta/models") || path.equals("/v1/models"))
                    ? Optional.of(of(Endpoint.MODELS)) : Optional.empty();
        }
        String rest = path.substring(prefix.length());
        int colon = rest.lastIndexOf(':');
        if (colon <= 0) {
            return Optional.empty();
        }
        Optional<String> model = Optional.of(rest.substring(0, colon));
        return switch (rest.substring(colon + 1)) {
            case "generateContent" -> Optional.of(new Route(Endpoint.GENERATE, model, false));
            case "streamGenerateContent" -> Optional.of(new Route(Endpoint.STREAM_GENERATE, model, false));
            case "countTokens" -> Optional.of(new Route(Endpoint.GEMINI_COUNT_TOKENS, model, false));
            case "embedContent" -> Optional.of(new Route(Endpoint.EMBED_CONTENT, model, false));
            case "batchEmbedContents" -> Optional.of(new Route(Endpoint.BATCH_EMBED_CONTENTS, model, false));
            default -> Optional.empty();
        };
    }
}
