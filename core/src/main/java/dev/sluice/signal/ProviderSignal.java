package dev.sluice.signal;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A provider response reduced to what the governor needs: what happened, which limit (if any) was
 * hit, when to try again, and what the response said about every limit it reported.
 *
 * @param status what kind of answer this was
 * @param httpStatus the HTTP status, or 0 when there was no HTTP response
 *     ({@link SignalNormaliser#timeout()}, {@link SignalNormaliser#connectionFailed()})
 * @param limitHit the limit that caused a rejection, when the response says or implies it
 * @param retryAfterMillis how long the provider asked to wait, 0 to 24 h; empty when it gave no hint
 * @param retryable whether resending the same request later can succeed; false for quota, spend and
 *     size rejections that waiting a little will not cure, and for successes
 * @param observations every limit the response described, in the order read
 * @param reason a short machine-readable cause, one of the {@code REASON_*} constants
 * @param malformedFields how many header or body values were ignored because they did not parse
 * @param quotaOwner for a 429, the provider's identifier of the quota its message says refused it
 *     (an organisation or project id): a quota shared above one deployment, which a configured
 *     provider scope may claim by that name; empty when the message names none
 */
public record ProviderSignal(
        SignalStatus status,
        int httpStatus,
        Optional<LimitKind> limitHit,
        OptionalLong retryAfterMillis,
        boolean retryable,
        List<LimitObservation> observations,
        String reason,
        int malformedFields,
        Optional<String> quotaOwner) {

    /** The longest delay any signal carries: 24 hours. Longer hints are clamped to it. */
    public static final long MAX_DELAY_MILLIS = 24L * 60 * 60 * 1000;

    /** A 2xx response. */
    public static final String REASON_OK = "ok";
    /** A 429 for an ordinary per-window limit: waiting helps. */
    public static final String REASON_RATE_LIMITED = "rate_limited";
    /** OpenAI: out of credit or plan quota. */
    public static final String REASON_INSUFFICIENT_QUOTA = "insufficient_quota";
    /** A single request larger than the limit itself (OpenAI "Request too large", HTTP 413). */
    public static final String REASON_REQUEST_TOO_LARGE = "request_too_large";
    /** Anthropic: the organisation's spend cap was reached. */
    public static final String REASON_SPEND_LIMIT = "enforced_spend_limit_reached";
    /** A daily quota was hit, or the provider asked for a wait of an hour or more. */
    public static final String REASON_QUOTA_EXHAUSTED = "quota_exhausted";
    /** Gemini: the quota for this model is zero (no free tier), so it can never succeed. */
    public static final String REASON_ZERO_QUOTA = "zero_quota";
    /** A 429 caused by shared provider capacity rather than this caller's quota. */
    public static final String REASON_PROVIDER_CAPACITY = "provider_capacity";
    /** IETF problem type {@code abnormal-usage-detected}. */
    public static final String REASON_ABNORMAL_USAGE = "abnormal_usage";
    /** HTTP 529 or 503. */
    public static final String REASON_OVERLOADED = "overloaded";
    /** Any other 5xx. */
    public static final String REASON_SERVER_ERROR = "server_error";
    /** HTTP 408, 504 or no answer in time. */
    public static final String REASON_TIMEOUT = "timeout";
    /** HTTP 409: the official SDKs retry it. */
    public static final String REASON_CONFLICT = "conflict";
    /** Any other 4xx. */
    public static final String REASON_CLIENT_ERROR = "client_error";
    /** No HTTP response. */
    public static final String REASON_CONNECTION_FAILED = "connection_failed";
    /** A status that no provider API should return (1xx, 3xx, out of range). */
    public static final String REASON_UNEXPECTED_STATUS = "unexpected_status";

    /** A signal that names no quota owner. */
    public ProviderSignal(SignalStatus status, int httpStatus, Optional<LimitKind> limitHit,
            OptionalLong retryAfterMillis, boolean retryable, List<LimitObservation> observations, String reason,
            int malformedFields) {
        this(status, httpStatus, limitHit, retryAfterMillis, retryable, observations, reason, malformedFields,
                Optional.empty());
    }

    /** This signal, said to come from the quota the provider calls {@code owner}. */
    public ProviderSignal withQuotaOwner(String owner) {
        return new ProviderSignal(status, httpStatus, limitHit, retryAfterMillis, retryable, observations, reason,
                malformedFields, Optional.of(owner));
    }

    /** Validates every field and freezes the observation list. */
    public ProviderSignal {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(quotaOwner, "quotaOwner");
        Objects.requireNonNull(limitHit, "limitHit");
        Objects.requireNonNull(retryAfterMillis, "retryAfterMillis");
        Objects.requireNonNull(reason, "reason");
        observations = List.copyOf(observations);
        if (retryAfterMillis.isPresent()
                && (retryAfterMillis.getAsLong() < 0 || retryAfterMillis.getAsLong() > MAX_DELAY_MILLIS)) {
            throw new IllegalArgumentException("retryAfterMillis: " + retryAfterMillis.getAsLong()
                    + " (expected: 0.." + MAX_DELAY_MILLIS + ")");
        }
        if (malformedFields < 0) {
            throw new IllegalArgumentException("malformedFields: " + malformedFields + " (expected: >= 0)");
        }
        if (reason.isBlank()) {
            throw new IllegalArgumentException("reason: blank (expected: one of the REASON_* codes)");
        }
    }
}
