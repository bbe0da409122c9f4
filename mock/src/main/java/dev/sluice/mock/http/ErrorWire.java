package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.mock.http.Route.Endpoint;
import dev.sluice.mock.limits.Admission.Limited;
import dev.sluice.mock.limits.Admission.TooLarge;
import dev.sluice.mock.limits.Gauge;
import dev.sluice.mock.limits.LimitKind;
import dev.sluice.mock.limits.LimitSnapshot;
import io.vertx.core.buffer.Buffer;
import java.util.Map;

/**
 * Error bodies in each provider's shape. The structure and the phrases clients parse ("Please try
 * again in 125ms.", "Please retry after 7 seconds.", {@code RetryInfo}) follow the providers; the
 * rest of the wording is the mock's own.
 *
 * @param flavour whose shape
 * @param model the model named in messages
 * @param requestId the request id (Anthropic puts it in the body)
 * @param endpoint the endpoint, for Azure's operation name
 * @param apiVersion Azure's {@code api-version}, for its messages
 */
record ErrorWire(Flavour flavour, String model, String requestId, Endpoint endpoint, String apiVersion) {

    private static final String ORGANIZATION = "org-sluicemock";
    private static final String GEMINI_QUOTA_DOCS = "https://ai.google.dev/gemini-api/docs/rate-limits";
    private static final String PROBLEM_QUOTA = "https://iana.org/assignments/http-problem-types#quota-exceeded";

    // ---- rate limits ------------------------------------------------------------------------------

    ErrorReply limited(Limited l, LimitSnapshot snapshot, RateLimitBody variant) {
        String outcome = "limited:" + l.which();
        if (variant == RateLimitBody.PROBLEM_JSON) {
            return problem(l.which(), "The " + LimitHeaders.policyName(l.which()) + " quota is used up for now.",
                    l.retryAfterMillis(), outcome);
        }
        if (endpoint == Endpoint.GEMINI_COMPAT_CHAT) {
            return geminiCompatExhausted(l.retryAfterMillis(), outcome);
        }
        return switch (flavour) {
            case OPENAI -> openAi(429, openAiLimitedMessage(l), l.which().isTokens() ? "tokens" : "requests",
                    "rate_limit_exceeded", l.retryAfterMillis(), outcome);
            case AZURE_OPENAI -> azure(429, "429", variant == RateLimitBody.ALTERNATE
                    ? "Rate limit is exceeded. Try again in " + Wire.ceilSeconds(l.retryAfterMillis()) + " seconds."
                    : azureLimitedMessage(l.which(), Wire.ceilSeconds(l.retryAfterMillis())), l.retryAfterMillis(), outcome);
            case ANTHROPIC -> anthropic(429, "rate_limit_error", anthropicLimitedMessage(l), null,
                    l.retryAfterMillis(), outcome);
            case GEMINI -> variant == RateLimitBody.ALTERNATE
                    ? vertexExhausted(l.retryAfterMillis(), outcome)
                    : geminiExhausted(l.which(), l.limit(), snapshot, l.retryAfterMillis(), outcome);
        };
    }

    ErrorReply tooLarge(TooLarge t, LimitSnapshot snapshot, RateLimitBody variant) {
        String outcome = "too_large:" + t.which();
        if (variant == RateLimitBody.PROBLEM_JSON) {
            return problem(t.which(), "The request alone exceeds the " + LimitHeaders.policyName(t.which())
                    + " quota of " + t.limit() + ".", -1, outcome);
        }
        if (endpoint == Endpoint.GEMINI_COMPAT_CHAT) {
            return geminiCompatExhausted(-1, outcome);
        }
        return switch (flavour) {
            case OPENAI -> openAi(429, "Request too large for " + model + " in organization " + ORGANIZATION + " on "
                    + openAiUnit(t.which()) + ": Limit " + t.limit() + ", Requested " + t.requested()
                    + ". The input or output tokens must be reduced for this request to run.",
                    "tokens", "rate_limit_exceeded", -1, outcome);
            case AZURE_OPENAI -> azure(429, "429", "Requests to the " + azureOperation() + " Operation under Azure"
                    + " OpenAI API version " + apiVersion + " ask for " + t.requested() + " tokens, more than the "
                    + t.limit() + " token rate limit of this deployment allows at once.", -1, outcome);
            case ANTHROPIC -> anthropic(429, "rate_limit_error", "This request's " + Wire.grouped(t.requested())
                    + " " + anthropicUnit(t.which()) + " exceed the rate limit for your organization of "
                    + Wire.grouped(t.limit()) + " " + anthropicUnit(t.which()) + " per minute.", null, -1, outcome);
            case GEMINI -> geminiExhausted(t.which(), t.limit(), snapshot, -1, outcome);
        };
    }

    /** The permanent 429 of an account out of quota or over its spend cap. */
    ErrorReply quotaExhausted() {
        String outcome = "quota_exhausted";
        if (endpoint == Endpoint.GEMINI_COMPAT_CHAT) {
            return geminiCompatExhausted(-1, outcome);
        }
        return switch (flavour) {
            case OPENAI -> openAi(429, "You exceeded your current quota, please check your plan and billing details."
                    + " This mock account has no credit left.", "insufficient_quota", "insufficient_quota", -1, outcome);
            case AZURE_OPENAI -> azure(429, "429", "Requests to the " + azureOperation() + " Operation under Azure"
                    + " OpenAI API version " + apiVersion + " have exceeded the token quota of your current pricing tier."
                    + " Please retry after 86400 seconds.", 86_400_000L, outcome);
            case ANTHROPIC -> anthropic(429, "rate_limit_error", "Your organization has reached its spend limit."
                    + " Requests will fail until access resumes.", "enforced_spend_limit_reached", -1, outcome);
            case GEMINI -> geminiExhausted(LimitKind.REQUESTS_PER_DAY, 0, null, -1, outcome);
        };
    }

    // ---- other errors -----------------------------------------------------------------------------

    ErrorReply serverError(String outcome) {
        return status(500, outcome);
    }

    /** 529 for Anthropic, "high demand" 429 for Azure, 503 for the others. */
    ErrorReply overloaded(String outcome) {
        return switch (flavour) {
            case ANTHROPIC -> anthropic(529, "overloaded_error", "Overloaded", null, -1, outcome);
            case AZURE_OPENAI -> azure(429, "429", "The system is experiencing high demand and cannot process your"
                    + " request right now. Please retry after 1 seconds.", 1_000, outcome);
            case OPENAI -> openAi(503, "The model is overloaded right now. Please try again later.", "server_error",
                    null, -1, outcome);
            case GEMINI -> gemini(503, "The model is overloaded. Please try again later.", "UNAVAILABLE", outcome);
        };
    }

    ErrorReply unauthorized() {
        return switch (flavour) {
            case OPENAI -> openAi(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key", -1,
                    "unauthorized");
            case AZURE_OPENAI -> azure(401, "401", "Access denied due to invalid subscription key or wrong API"
                    + " endpoint.", -1, "unauthorized");
            case ANTHROPIC -> anthropic(401, "authentication_error", "invalid x-api-key", null, -1, "unauthorized");
            case GEMINI -> gemini(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT",
                    "unauthorized");
        };
    }

    ErrorReply badRequest(String message) {
        return switch (flavour) {
            case OPENAI -> openAi(400, message, "invalid_request_error", null, -1, "bad_request");
            case AZURE_OPENAI -> azure(400, "BadRequest", message, -1, "bad_request");
            case ANTHROPIC -> anthropic(400, "invalid_request_error", message, null, -1, "bad_request");
            case GEMINI -> gemini(400, message, "INVALID_ARGUMENT", "bad_request");
        };
    }

    ErrorReply notFound(String path) {
        String message = "No such endpoint: " + path;
        return switch (flavour) {
            case OPENAI -> openAi(404, message, "invalid_request_error", "unknown_url", -1, "not_found");
            case AZURE_OPENAI -> azure(404, "404", "Resource not found", -1, "not_found");
            case ANTHROPIC -> anthropic(404, "not_found_error", message, null, -1, "not_found");
            case GEMINI -> gemini(404, message, "NOT_FOUND", "not_found");
        };
    }

    /** Any status a test asks for with {@code x-mock-status}, in the flavour's shape. */
    ErrorReply status(int status, String outcome) {
        String message = "The mock was asked to answer " + status + ".";
        return switch (flavour) {
            case OPENAI -> status >= 500
                    ? openAi(status, "The server had an error while processing your request.", "server_error", null,
                            -1, outcome)
                    : openAi(status, message, status == 429 ? "requests" : "invalid_request_error",
                            status == 429 ? "rate_limit_exceeded" : null, status == 429 ? 1_000 : -1, outcome);
            case AZURE_OPENAI -> azure(status, status >= 500 ? "InternalServerError" : Integer.toString(status),
                    status >= 500 ? "The server had an error processing your request." : message,
                    status == 429 ? 1_000 : -1, outcome);
            case ANTHROPIC -> anthropic(status, anthropicType(status),
                    status == 529 ? "Overloaded" : status >= 500 ? "Internal server error" : message, null,
                    status == 429 ? 1_000 : -1, outcome);
            case GEMINI -> gemini(status, status >= 500 ? "An internal error has occurred." : message,
                    geminiStatus(status), outcome);
        };
    }

    /** The error event written into a stream that has already sent 200. */
    Buffer streamError() {
        return switch (flavour) {
            case ANTHROPIC -> {
                ObjectNode o = Wire.obj().put("type", "error");
                o.putObject("error").put("type", "overloaded_error").put("message", "Overloaded");
                o.put("request_id", requestId);
                yield Wire.sse("error", o);
            }
            case GEMINI -> {
                if (endpoint == Endpoint.GEMINI_COMPAT_CHAT) {
                    yield Wire.sse(openAiBody("The server had an error while processing your request.",
                            "server_error", null));
                }
                ObjectNode o = Wire.obj();
                o.putObject("error").put("code", 500).put("message", "An internal error has occurred.")
                        .put("status", "INTERNAL");
                yield Buffer.buffer("data: " + Wire.json(o) + "\r\n\r\n");
            }
            case OPENAI, AZURE_OPENAI -> Wire.sse(openAiBody(
                    "The server had an error while processing your request.", "server_error", null));
        };
    }

    // ---- shapes -----------------------------------------------------------------------------------

    private static ObjectNode openAiBody(String message, String type, String code) {
        ObjectNode o = Wire.obj();
        ObjectNode e = o.putObject("error");
        e.put("message", message);
        e.put("type", type);
        e.putNull("param");
        if (code == null) {
            e.putNull("code");
        } else {
            e.put("code", code);
        }
        return o;
    }

    private static ErrorReply openAi(int status, String message, String type, String code, long hint, String outcome) {
        return new ErrorReply(status, ErrorReply.JSON, Wire.buffer(openAiBody(message, type, code)), hint, outcome);
    }

    private static ErrorReply azure(int status, String code, String message, long hint, String outcome) {
        ObjectNode o = Wire.obj();
        o.putObject("error").put("code", code).put("message", message);
        return new ErrorReply(status, ErrorReply.JSON, Wire.buffer(o), hint, outcome);
    }

    private ErrorReply anthropic(int status, String type, String message, String detailCode, long hint,
            String outcome) {
        ObjectNode o = Wire.obj().put("type", "error");
        ObjectNode e = o.putObject("error").put("type", type).put("message", message);
        if (detailCode == null) {
            e.putNull("details");
        } else {
            e.putObject("details").put("error_code", detailCode);
        }
        o.put("request_id", requestId);
        return new ErrorReply(status, ErrorReply.JSON, Wire.buffer(o), hint, outcome);
    }

    private static ErrorReply gemini(int status, String message, String grpcStatus, String outcome) {
        ObjectNode o = Wire.obj();
        o.putObject("error").put("code", status).put("message", message).put("status", grpcStatus);
        return new ErrorReply(status, ErrorReply.JSON, Wire.buffer(o), -1, outcome);
    }

    private static ErrorReply problem(LimitKind kind, String detail, long hint, String outcome) {
        ObjectNode o = Wire.obj();
        o.put("type", PROBLEM_QUOTA);
        o.put("title", "Quota exceeded");
        o.put("status", 429);
        o.put("detail", detail);
        o.putArray("violated-policies").add(LimitHeaders.policyName(kind));
        return new ErrorReply(429, "application/problem+json", Wire.buffer(o), hint, outcome);
    }

    private String openAiLimitedMessage(Limited l) {
        return "Rate limit reached for " + model + " in organization " + ORGANIZATION + " on " + openAiUnit(l.which())
                + ": Limit " + l.limit() + ", Used " + l.used() + ", Requested " + l.requested()
                + ". Please try again in " + GoDuration.format(l.retryAfterMillis())
                + ". The limits of this mock can be changed at /_mock/limits.";
    }

    private static String openAiUnit(LimitKind kind) {
        return switch (kind) {
            case TOKENS -> "tokens per min (TPM)";
            case INPUT_TOKENS -> "input tokens per min (TPM)";
            case OUTPUT_TOKENS -> "output tokens per min (TPM)";
            case REQUESTS, ACCELERATION -> "requests per min (RPM)";
            case REQUESTS_PER_DAY -> "requests per day (RPD)";
            case CONCURRENCY -> "concurrent requests";
        };
    }

    private String azureOperation() {
        return switch (endpoint) {
            case COMPLETIONS -> "Completions_Create";
            case EMBEDDINGS -> "Embeddings_Create";
            case RESPONSES -> "Responses_Create";
            default -> "ChatCompletions_Create";
        };
    }

    private String azureLimitedMessage(LimitKind kind, long seconds) {
        String what = kind.isTokens() ? "token rate limit" : "call rate limit";
        return "Requests to the " + azureOperation() + " Operation under Azure OpenAI API version " + apiVersion
                + " have exceeded the " + what + " of your current pricing tier. Please retry after " + seconds
                + " seconds. Raise the mock's limits at /_mock/limits for more.";
    }

    private static String anthropicLimitedMessage(Limited l) {
        return switch (l.which()) {
            case ACCELERATION -> "Your request rate rose too quickly. Ramp traffic up gradually and retry shortly.";
            case CONCURRENCY -> "This request would exceed your organization's limit of " + l.limit()
                    + " concurrent requests. Retry shortly.";
            case REQUESTS_PER_DAY -> "This request would exceed the rate limit for your organization of "
                    + Wire.grouped(l.limit()) + " requests per day.";
            default -> "This request would exceed the rate limit for your organization of " + Wire.grouped(l.limit())
                    + " " + anthropicUnit(l.which()) + " per minute. Retry after the time in the retry-after header.";
        };
    }

    private static String anthropicUnit(LimitKind kind) {
        return switch (kind) {
            case INPUT_TOKENS -> "input tokens";
            case OUTPUT_TOKENS -> "output tokens";
            case TOKENS -> "tokens";
            default -> "requests";
        };
    }

    private static String anthropicType(int status) {
        return switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 402 -> "billing_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 409 -> "conflict_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 504 -> "timeout_error";
            case 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }

    private static String geminiStatus(int status) {
        return switch (status) {
            case 400 -> "INVALID_ARGUMENT";
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "PERMISSION_DENIED";
            case 404 -> "NOT_FOUND";
            case 409 -> "ABORTED";
            case 429 -> "RESOURCE_EXHAUSTED";
            case 503 -> "UNAVAILABLE";
            case 504 -> "DEADLINE_EXCEEDED";
            default -> status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
        };
    }

    private record Quota(String metric, String id) {}

    private static final Map<LimitKind, Quota> GEMINI_QUOTAS = Map.of(
            LimitKind.REQUESTS, new Quota("generate_content_requests", "GenerateRequestsPerMinutePerProjectPerModel"),
            LimitKind.ACCELERATION, new Quota("generate_content_requests", "GenerateRequestsPerMinutePerProjectPerModel"),
            LimitKind.CONCURRENCY, new Quota("generate_content_requests", "GenerateRequestsPerMinutePerProjectPerModel"),
            LimitKind.REQUESTS_PER_DAY, new Quota("generate_content_requests", "GenerateRequestsPerDayPerProjectPerModel"),
            LimitKind.INPUT_TOKENS,
            new Quota("generate_content_input_token_count", "GenerateContentInputTokensPerModelPerMinute"),
            LimitKind.TOKENS, new Quota("generate_content_input_token_count", "GenerateContentInputTokensPerModelPerMinute"),
            LimitKind.OUTPUT_TOKENS,
            new Quota("generate_content_output_token_count", "GenerateContentOutputTokensPerModelPerMinute"));

    private void addViolation(ArrayNode violations, LimitKind kind, long limit) {
        Quota q = GEMINI_QUOTAS.get(kind);
        ObjectNode v = violations.addObject();
        v.put("quotaMetric", "generativelanguage.googleapis.com/" + q.metric());
        v.put("quotaId", q.id());
        v.putObject("quotaDimensions").put("location", "global").put("model", model);
        v.put("quotaValue", Long.toString(limit));
    }

    /**
     * RESOURCE_EXHAUSTED with a QuotaFailure naming the limit hit and every other exhausted one, a Help
     * link and, when a wait is known, RetryInfo.
     */
    private ErrorReply geminiExhausted(LimitKind kind, long limit, LimitSnapshot snapshot, long hint, String outcome) {
        ObjectNode o = Wire.obj();
        ObjectNode e = o.putObject("error");
        e.put("code", 429);
        String message = "You exceeded your current quota, please check your plan and billing details. Quota exceeded"
                + " for metric: generativelanguage.googleapis.com/" + GEMINI_QUOTAS.get(kind).metric() + ", limit: "
                + limit + ", model: " + model + ".";
        e.put("message", hint >= 0 ? message + " Please retry in " + Wire.seconds(hint) + "s." : message);
        e.put("status", "RESOURCE_EXHAUSTED");
        ArrayNode details = e.putArray("details");
        ObjectNode failure = details.addObject().put("@type", "type.googleapis.com/google.rpc.QuotaFailure");
        ArrayNode violations = failure.putArray("violations");
        addViolation(violations, kind, limit);
        if (snapshot != null) {
            for (Map.Entry<LimitKind, Gauge> g : snapshot.gauges().entrySet()) {
                if (g.getKey() != kind && g.getKey() != LimitKind.CONCURRENCY && g.getValue().remaining() == 0) {
                    addViolation(violations, g.getKey(), g.getValue().limit());
                }
            }
        }
        ObjectNode help = details.addObject().put("@type", "type.googleapis.com/google.rpc.Help");
        help.putArray("links").addObject().put("description", "Learn more about Gemini API quotas")
                .put("url", GEMINI_QUOTA_DOCS);
        if (hint >= 0) {
            details.addObject().put("@type", "type.googleapis.com/google.rpc.RetryInfo")
                    .put("retryDelay", Wire.seconds(hint) + "s");
        }
        return new ErrorReply(429, ErrorReply.JSON, Wire.buffer(o), hint, outcome);
    }

    /** Vertex AI's shared-capacity 429: no details, no RetryInfo. */
    private static ErrorReply vertexExhausted(long hint, String outcome) {
        ObjectNode o = Wire.obj();
        o.putObject("error").put("code", 429).put("message", "Resource exhausted, please try again later.")
                .put("status", "RESOURCE_EXHAUSTED");
        return new ErrorReply(429, ErrorReply.JSON, Wire.buffer(o), hint, outcome);
    }

    /** Gemini's OpenAI-compatible endpoint has answered 429s as a JSON array. */
    private static ErrorReply geminiCompatExhausted(long hint, String outcome) {
        ArrayNode a = Wire.arr();
        a.addObject().putObject("error").put("code", 429).put("message", "Resource has been exhausted (e.g. check"
                + " quota).").put("status", "RESOURCE_EXHAUSTED");
        return new ErrorReply(429, ErrorReply.JSON, Wire.buffer(a), hint, outcome);
    }
}
