package dev.sluice.gateway.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.governor.Explanation;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
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

    /**
     * The longest wait a client is told to retry after by itself: openai-node, anthropic-python and
     * LangChain.js ignore or refuse longer hints, so a longer wait is a "do not retry" (see {@link Refusal}).
     */
    public static final long MAX_CLIENT_RETRY_MILLIS = 60_000;

    static final ObjectMapper MAPPER = new ObjectMapper();

    /** A provider's refusals of a quota that is spent, not short for a moment (codes of provider rejections). */
    private static final java.util.Set<String> SPENT_PROVIDER_QUOTAS = java.util.Set.of("provider_insufficient_quota",
            "provider_enforced_spend_limit_reached", "provider_quota_exhausted", "provider_zero_quota");
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

    /**
     * The normalised refusal body, merged into the family's error shape. Each family's own fields
     * say what its libraries read: OpenAI {@code code: "rate_limit_exceeded"} on a 429 (code written
     * against OpenAI checks it), Anthropic {@code error.type} by status, Gemini {@code status} and a
     * {@code RetryInfo} only when the client should retry. Sluice's precise cause is
     * {@code sluice_code} in every family.
     */
    public static ObjectNode rejection(ApiFamily family, RejectionView v, Refusal refusal) {
        ObjectNode e = NODES.objectNode();
        int status = refusal.status();
        switch (family) {
            case OPENAI -> {
                e.put("type", openAiType(status));
                e.put("message", v.message());
                e.put("code", openAiCode(status, v));
                e.putNull("param");
                fill(e, v, refusal);
                ObjectNode root = NODES.objectNode();
                root.set("error", e);
                return root;
            }
            case ANTHROPIC -> {
                // Anthropic SDKs classify by error.type: rate_limit_error on a 429.
                e.put("type", anthropicType(status));
                e.put("message", v.message());
                e.put("code", v.code());
                fill(e, v, refusal);
                ObjectNode root = NODES.objectNode();
                root.put("type", "error");
                root.set("error", e);
                root.put("request_id", v.traceId());
                return root;
            }
            default -> {
                // Google's error.code is the HTTP status; the cause goes in ErrorInfo.reason and in "reason".
                e.put("code", status);
                e.put("status", googleStatus(status));
                e.put("message", v.message());
                e.put("type", "rate_limited");
                e.put("reason", v.code());
                fill(e, v, refusal);
                ArrayNode details = e.putArray("details");
                ObjectNode info = details.addObject();
                info.put("@type", "type.googleapis.com/google.rpc.ErrorInfo");
                info.put("reason", v.code().toUpperCase(Locale.ROOT));
                info.put("domain", "sluice");
                ObjectNode meta = info.putObject("metadata");
                meta.put("limiter", v.limiter());
                meta.put("scope", v.scope());
                meta.put("gateway_decision", v.decision().wireName());
                if (status == 429) {
                    ObjectNode quota = details.addObject();
                    quota.put("@type", "type.googleapis.com/google.rpc.QuotaFailure");
                    ObjectNode violation = quota.putArray("violations").addObject();
                    violation.put("subject", v.scope());
                    violation.put("description", v.message());
                    violation.put("quotaMetric", "sluice/" + v.limiter());
                    violation.put("quotaId", v.code());
                }
                if (refusal.retry()) {
                    ObjectNode retry = details.addObject();
                    retry.put("@type", "type.googleapis.com/google.rpc.RetryInfo");
                    retry.put("retryDelay", protoDuration(refusal.retryAfterMillis().getAsLong()));
                }
                ObjectNode root = NODES.objectNode();
                root.set("error", e);
                return root;
            }
        }
    }

    /**
     * The OpenAI-family {@code code}: {@code rate_limit_exceeded} on a 429, as OpenAI sends it, but
     * {@code insufficient_quota} for a spent daily cap or budget (OpenAI's code for a quota that
     * retrying cannot bring back, on which LangChain.js stops retrying); {@code request_too_large}
     * on a 413.
     */
    static String openAiCode(int status, RejectionView v) {
        return switch (status) {
            case 429 -> v.decision() == dev.sluice.governor.GatewayDecision.BUDGET_EXHAUSTED
                    || SPENT_PROVIDER_QUOTAS.contains(v.code()) ? "insufficient_quota" : "rate_limit_exceeded";
            case 413 -> "request_too_large";
            default -> v.code();
        };
    }

    private static void fill(ObjectNode e, RejectionView v, Refusal refusal) {
        e.put("sluice_code", v.code());
        e.put("limiter", v.limiter());
        e.put("scope", v.scope());
        e.put("provider", v.provider());
        e.put("model_profile", v.modelProfile());
        e.put("provider_model", v.providerModel());
        if (refusal.retryAfterMillis().isPresent()) {
            e.put("retry_after_ms", refusal.retryAfterMillis().getAsLong());
        } else {
            e.putNull("retry_after_ms");
        }
        e.put("retryable", refusal.retry());
        e.put("tenant_id", v.tenantId());
        e.put("api_key_id", v.apiKeyId());
        e.put("request_class", v.requestClass());
        e.put("estimated_input_tokens", v.estimatedInputTokens());
        e.put("estimated_output_tokens", v.estimatedOutputTokens());
        e.put("gateway_decision", v.decision().wireName());
        e.put("fallback_allowed", v.fallbackAllowed());
        if (!v.fallbackAllowed()) {
            v.fallbackForbiddenBy().ifPresent(rule -> e.put("fallback_forbidden_by", rule));
        }
        e.put("trace_id", v.traceId());
        v.explanation().ifPresent(x -> explain(e.putObject("explanation"), x, v.mode()));
    }

    /** What decided a local refusal, field by field (the {@code x-sluice-explanation} header says it on one line). */
    private static void explain(ObjectNode o, Explanation x, Optional<String> mode) {
        o.put("scope", x.scope().map(Scope::key).orElse("gateway"));
        o.put("limiter", x.dimension().map(Dimension::limiterName).orElse("none"));
        if (x.window().isPresent()) {
            o.put("window", x.window().get());
        } else {
            o.putNull("window");
        }
        if (mode.isPresent()) {
            o.put("mode", mode.get());
        } else {
            o.putNull("mode");
        }
        o.put("paused", x.paused());
        o.put("reserve", x.reserve());
        millis(o, "predicted_wait_ms", x.predictedWaitNanos());
        millis(o, "service_ms", x.serviceNanos() > 0 ? x.serviceNanos() : Explanation.UNKNOWN);
        millis(o, "wait_budget_ms", x.budgetNanos() == Long.MAX_VALUE ? Explanation.UNKNOWN
                : x.budgetNanos());
        o.put("bound_by", x.budgetNanos() == Explanation.UNKNOWN ? null
                : x.deadlineBound() ? "deadline" : "class");
    }

    private static void millis(ObjectNode o, String name, long nanos) {
        if (nanos == Explanation.UNKNOWN) {
            o.putNull(name);
        } else {
            o.put(name, nanos / 1_000_000);
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
