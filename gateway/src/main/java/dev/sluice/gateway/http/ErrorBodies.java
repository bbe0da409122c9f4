package dev.sluice.gateway.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.MultiMap;
import java.util.Locale;
import java.util.Optional;

/**
 * Error bodies in the shape each SDK family parses, and the retry headers of a 429. OpenAI SDKs
 * read {@code error.message/type/code}; Anthropic SDKs {@code type: "error"} with
 * {@code error.type/message}; Google clients {@code error.code/status/message} and
 * {@code RetryInfo} in {@code error.details}.
 */
public final class ErrorBodies {

    /** Retry hints sent to clients never exceed this: some SDKs ignore or refuse longer ones. */
    public static final long MAX_CLIENT_RETRY_MILLIS = 60_000;

    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ErrorBodies() {}

    /** Serialises a body. */
    public static byte[] bytes(ObjectNode body) {
        try {
            return MAPPER.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain nodes always serialises", e);
        }
    }

    /**
     * A gateway error that is not a rate limit (bad input, authentication, upstream failure).
     *
     * @param code machine-readable cause, e.g. {@code invalid_json}
     * @param param the offending request field, when one is known
     */
    public static ObjectNode local(ApiFamily family, int status, String code, String message, Optional<String> param,
            String traceId) {
        return switch (family) {
            case OPENAI -> {
                ObjectNode e = NODES.objectNode();
                e.put("message", message);
                e.put("type", openAiType(status));
                if (param.isPresent()) {
                    e.put("param", param.get());
                } else {
                    e.putNull("param");
                }
                e.put("code", code);
                e.put("trace_id", traceId);
                ObjectNode root = NODES.objectNode();
                root.set("error", e);
                yield root;
            }
            case ANTHROPIC -> {
                ObjectNode e = NODES.objectNode();
                e.put("type", anthropicType(status));
                e.put("message", message);
                e.put("code", code);
                e.put("trace_id", traceId);
                ObjectNode root = NODES.objectNode();
                root.put("type", "error");
                root.set("error", e);
                root.put("request_id", traceId);
                yield root;
            }
            case GEMINI -> {
                ObjectNode e = NODES.objectNode();
                e.put("code", status);
                e.put("message", message);
                e.put("status", googleStatus(status));
                e.put("reason", code);
                e.put("trace_id", traceId);
                ObjectNode root = NODES.objectNode();
                root.set("error", e);
                yield root;
            }
        };
    }

    /** The normalised 429 body, merged into the family's error shape. */
    public static ObjectNode rejection(ApiFamily family, RejectionView v) {
        ObjectNode e = NODES.objectNode();
        switch (family) {
            case OPENAI -> {
                e.put("type", "rate_limited");
                e.put("message", v.message());
                e.put("code", v.code());
                fill(e, v);
                ObjectNode root = NODES.objectNode();
                root.set("error", e);
                return root;
            }
            case ANTHROPIC -> {
                // Anthropic SDKs classify by error.type: it must be rate_limit_error here.
                e.put("type", "rate_limit_error");
                e.put("message", v.message());
                e.put("code", v.code());
                fill(e, v);
                ObjectNode root = NODES.objectNode();
                root.put("type", "error");
                root.set("error", e);
                root.put("request_id", v.traceId());
                return root;
            }
            default -> {
                // Google's error.code is the HTTP status; the cause goes in ErrorInfo.reason and in "reason".
                e.put("code", 429);
                e.put("status", "RESOURCE_EXHAUSTED");
                e.put("message", v.message());
                e.put("type", "rate_limited");
                e.put("reason", v.code());
                fill(e, v);
                ArrayNode details = e.putArray("details");
                ObjectNode info = details.addObject();
                info.put("@type", "type.googleapis.com/google.rpc.ErrorInfo");
                info.put("reason", v.code().toUpperCase(Locale.ROOT));
                info.put("domain", "sluice");
                ObjectNode meta = info.putObject("metadata");
                meta.put("limiter", v.limiter());
                meta.put("scope", v.scope());
                meta.put("gateway_decision", v.decision().wireName());
                ObjectNode retry = details.addObject();
                retry.put("@type", "type.googleapis.com/google.rpc.RetryInfo");
                retry.put("retryDelay", protoDuration(v.retryAfterMillis()));
                ObjectNode root = NODES.objectNode();
                root.set("error", e);
                return root;
            }
        }
    }

    private static void fill(ObjectNode e, RejectionView v) {
        e.put("limiter", v.limiter());
        e.put("scope", v.scope());
        e.put("provider", v.provider());
        e.put("model_profile", v.modelProfile());
        e.put("provider_model", v.providerModel());
        e.put("retry_after_ms", v.retryAfterMillis());
        e.put("retryable", v.retryable());
        e.put("tenant_id", v.tenantId());
        e.put("api_key_id", v.apiKeyId());
        e.put("request_class", v.requestClass());
        e.put("estimated_input_tokens", v.estimatedInputTokens());
        e.put("estimated_output_tokens", v.estimatedOutputTokens());
        e.put("gateway_decision", v.decision().wireName());
        e.put("fallback_allowed", false);
        e.put("trace_id", v.traceId());
    }

    /**
     * Sets {@code Retry-After} (whole seconds, rounded up) and {@code retry-after-ms}, both at least
     * 1 and at most {@link #MAX_CLIENT_RETRY_MILLIS}; {@code x-should-retry: false} when retrying
     * cannot help or the real wait is longer than that cap (the body carries the real wait).
     */
    public static void retryHeaders(MultiMap headers, long retryAfterMillis, boolean retryable) {
        long ms = Math.min(Math.max(1, retryAfterMillis), MAX_CLIENT_RETRY_MILLIS);
        headers.set("retry-after", Long.toString((ms + 999) / 1000));
        headers.set("retry-after-ms", Long.toString(ms));
        if (!retryable || retryAfterMillis > MAX_CLIENT_RETRY_MILLIS) {
            headers.set("x-should-retry", "false");
        }
    }

    static String protoDuration(long millis) {
        return String.format(Locale.ROOT, "%d.%03ds", millis / 1000, millis % 1000);
    }

    static String openAiType(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 429 -> "rate_limited";
            case 502, 503 -> "upstream_error";
            case 504 -> "timeout_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }

    static String anthropicType(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 504 -> "timeout_error";
            case 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }

    static String googleStatus(int status) {
        return switch (status) {
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "PERMISSION_DENIED";
            case 404 -> "NOT_FOUND";
            case 429 -> "RESOURCE_EXHAUSTED";
            case 504 -> "DEADLINE_EXCEEDED";
            case 502, 503 -> "UNAVAILABLE";
            default -> status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
        };
    }
}
