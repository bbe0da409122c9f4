package dev.sluice.signal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads a provider error body in any of the dialects: OpenAI/Azure/OpenRouter
 * {@code {"error":{"message","type","code"}}}, Anthropic {@code {"type":"error","error":{…,"details"}}},
 * Gemini {@code {"error":{"status","details":[QuotaFailure, RetryInfo, ErrorInfo]}}} (also wrapped
 * in an array by the OpenAI-compatible endpoint), IETF problem+json, and plain text.
 */
final class ErrorBody {

    /** More details or violations than this are not read. */
    private static final int MAX_ENTRIES = 32;
    private static final int MAX_ID_IN_SOURCE = 96;

    /**
     * What a body said.
     *
     * @param limitHit the limit it names
     * @param reason a {@code ProviderSignal.REASON_*} code more specific than the status
     * @param waitMillis Gemini {@code RetryInfo.retryDelay}, else a wait in the message text
     * @param observations Gemini quota violations with their limits
     * @param violatedPolicies IETF problem+json {@code violated-policies}
     * @param quotaOwner the provider's identifier of the quota the message says refused it
     */
    record Facts(Optional<LimitKind> limitHit, Optional<String> reason, OptionalLong waitMillis,
            List<LimitObservation> observations, List<String> violatedPolicies, Optional<String> quotaOwner) {

        static final Facts NONE = new Facts(Optional.empty(), Optional.empty(), OptionalLong.empty(), List.of(), List.of(),
                Optional.empty());
    }

    private final Malformed malformed;
    private final List<LimitObservation> observations = new ArrayList<>();
    private final List<LimitKind> violatedKinds = new ArrayList<>();
    private OptionalLong retryDelay = OptionalLong.empty();
    private boolean zeroQuota;

    private ErrorBody(Malformed malformed) {
        this.malformed = malformed;
    }

    static Facts read(String body, Malformed malformed) {
        if (body.isBlank()) {
            return Facts.NONE;
        }
        ErrorBody reader = new ErrorBody(malformed);
        Optional<JsonValue> parsed = Json.parse(body);
        if (parsed.isPresent()) {
            return reader.fromJson(parsed.get());
        }
        if (looksLikeJson(body)) {
            malformed.add(); // JSON that is truncated, too deep, too long or otherwise broken
        }
        // Plain text, HTML, or the readable part of broken JSON may still say how long to wait.
        return reader.summary(body, "", "", List.of());
    }

    private Facts fromJson(JsonValue parsed) {
        JsonValue root = parsed instanceof JsonValue.JArray array // Gemini's OpenAI-compatible endpoint
                ? array.elements().stream().findFirst().orElse(JsonValue.JNull.INSTANCE)
                : parsed;
        JsonValue error = root.get("error");
        JsonValue err = error instanceof JsonValue.JObject ? error : root;
        String message = err.get("message").string()
                .or(() -> error.string())
                .or(() -> err.get("Message").string())
                .orElse("");
        String type = err.get("type").string().orElse("");
        String code = err.get("code").scalarText().orElse("");

        if (err.get("details").get("error_code").string().filter("enforced_spend_limit_reached"::equals).isPresent()) {
            return definite(LimitKind.SPEND_QUOTA, ProviderSignal.REASON_SPEND_LIMIT, message);
        }
        if (type.equals("insufficient_quota") || code.equals("insufficient_quota")) {
            return definite(LimitKind.SPEND_QUOTA, ProviderSignal.REASON_INSUFFICIENT_QUOTA, message);
        }
        for (JsonValue detail : limited(err.get("details").items())) {
            String detailType = detail.get("@type").string().orElse("");
            if (detailType.endsWith(".QuotaFailure")) {
                limited(detail.get("violations").items()).forEach(this::violation);
            } else if (detailType.endsWith(".RetryInfo")) {
                retryInfo(detail.get("retryDelay"));
            } else if (detailType.endsWith(".ErrorInfo")) {
                errorInfo(detail);
            }
        }
        List<String> violatedPolicies = new ArrayList<>();
        limited(root.get("violated-policies").items()).forEach(p -> p.string().ifPresent(violatedPolicies::add));
        return summary(message, type, root.get("type").string().orElse(""), violatedPolicies);
    }

    /**
     * Structured fields first, message text only for what they left open. A daily violation names
     * the limit even when a per-minute one is listed first: it is the one that will not clear soon.
     */
    private Facts summary(String message, String type, String problemType, List<String> violatedPolicies) {
        Optional<LimitKind> limitHit = violatedKinds.contains(LimitKind.DAILY_QUOTA)
                ? Optional.of(LimitKind.DAILY_QUOTA)
                : violatedKinds.stream().filter(k -> k != LimitKind.UNKNOWN).findFirst()
                        .or(() -> violatedKinds.stream().findFirst());
        limitHit = limitHit.or(() -> openAiType(type, message)).or(() -> MessageText.limitKind(message));
        OptionalLong wait = retryDelay.isPresent() ? retryDelay : MessageText.waitHint(message);
        return new Facts(limitHit, reason(message, type, problemType), wait,
                List.copyOf(observations), List.copyOf(violatedPolicies), MessageText.quotaOwner(message));
    }

    private Optional<String> reason(String message, String type, String problemType) {
        if (type.equals("request_too_large") || MessageText.requestTooLarge(message)) {
            return Optional.of(ProviderSignal.REASON_REQUEST_TOO_LARGE);
        }
        if (zeroQuota || MessageText.zeroQuota(message)) {
            return Optional.of(ProviderSignal.REASON_ZERO_QUOTA);
        }
        if (problemType.endsWith("#abnormal-usage-detected")) {
            return Optional.of(ProviderSignal.REASON_ABNORMAL_USAGE);
        }
        if (problemType.endsWith("#temporary-reduced-capacity") || MessageText.providerCapacity(message)) {
            return Optional.of(ProviderSignal.REASON_PROVIDER_CAPACITY);
        }
        return Optional.empty();
    }

    /** A body whose code settles both the limit and the reason. */
    private static Facts definite(LimitKind limitHit, String reason, String message) {
        return new Facts(Optional.of(limitHit), Optional.of(reason), MessageText.waitHint(message), List.of(), List.of(),
                MessageText.quotaOwner(message));
    }

    /** OpenAI's {@code type} is the limit ("tokens", "requests") unless the message says per day. */
    private static Optional<LimitKind> openAiType(String type, String message) {
        Optional<LimitKind> fromMessage = MessageText.limitKind(message);
        if (fromMessage.filter(LimitKind.DAILY_QUOTA::equals).isPresent()) {
            return fromMessage;
        }
        return switch (type) {
            case "tokens" -> Optional.of(LimitKind.TOKENS);
            case "requests" -> Optional.of(LimitKind.REQUESTS);
            default -> Optional.empty();
        };
    }

    /** {@code google.rpc.QuotaFailure.Violation}: quotaId and quotaMetric say which, quotaValue how much. */
    private void violation(JsonValue violation) {
        String quotaId = violation.get("quotaId").string().orElse("");
        String metric = violation.get("quotaMetric").string().orElse("");
        quota(quotaId + " " + metric, violation.get("quotaValue"),
                "QuotaFailure " + (quotaId.isEmpty() ? metric : quotaId));
    }

    /** The 2024 form: {@code ErrorInfo} with {@code metadata.quota_limit}, {@code quota_limit_value}. */
    private void errorInfo(JsonValue info) {
        JsonValue metadata = info.get("metadata");
        String quotaLimit = metadata.get("quota_limit").string().orElse("");
        String metric = metadata.get("quota_metric").string().orElse("");
        String reason = info.get("reason").string().orElse("");
        if (quotaLimit.isEmpty() && metric.isEmpty() && !reason.contains("RATE_LIMIT") && !reason.contains("QUOTA")) {
            return;
        }
        quota(quotaLimit + " " + metric, metadata.get("quota_limit_value"),
                "ErrorInfo " + (quotaLimit.isEmpty() ? reason : quotaLimit));
    }

    private void quota(String identifiers, JsonValue quotaValue, String source) {
        LimitKind kind = MessageText.quotaKind(identifiers);
        violatedKinds.add(kind);
        OptionalLong limit = OptionalLong.empty();
        Optional<String> text = quotaValue.scalarText();
        if (text.isPresent()) {
            limit = Values.nonNegativeInteger(text.get());
            if (limit.isEmpty()) {
                malformed.add();
            }
        } else if (quotaValue != JsonValue.JNull.INSTANCE) {
            malformed.add();
        }
        if (limit.isPresent()) {
            zeroQuota |= limit.getAsLong() == 0;
            String shown = source.strip();
            shown = shown.length() > MAX_ID_IN_SOURCE ? shown.substring(0, MAX_ID_IN_SOURCE) : shown;
            observations.add(new LimitObservation(kind, limit, OptionalLong.empty(), OptionalLong.empty(), shown));
        }
    }

    /** {@code RetryInfo.retryDelay}: a protobuf Duration in JSON, {@code "26s"} or {@code "25.465784708s"}. */
    private void retryInfo(JsonValue delay) {
        Optional<String> text = delay.string();
        OptionalLong millis = text.filter(t -> t.endsWith("s"))
                .map(t -> Values.decimalMillis(t.substring(0, t.length() - 1), 1000))
                .orElse(OptionalLong.empty());
        if (millis.isEmpty()) {
            malformed.add();
        } else if (retryDelay.isEmpty()) {
            retryDelay = millis;
        }
    }

    /** Whether the first non-blank character opens a JSON object or array (no copy of a huge body). */
    private static boolean looksLikeJson(String body) {
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (!Character.isWhitespace(c)) {
                return c == '{' || c == '[';
            }
        }
        return false;
    }

    private static List<JsonValue> limited(List<JsonValue> items) {
        return items.size() > MAX_ENTRIES ? items.subList(0, MAX_ENTRIES) : items;
    }
}
