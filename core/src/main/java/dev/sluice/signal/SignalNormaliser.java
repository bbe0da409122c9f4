package dev.sluice.signal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Turns one provider response into a {@link ProviderSignal}. Stateless and thread-safe; time comes
 * in as an argument.
 *
 * <p>Rules, from {@code provider-semantics.md}:
 * <ul>
 *   <li>Status: 2xx success; 429 rate limited; 529 and 503 overloaded; 408 and 504 timeout; other
 *       4xx client error; other 5xx (and anything unexpected) server error.
 *   <li>Wait: {@code retry-after-ms} &gt; {@code x-ms-retry-after-ms} &gt; {@code Retry-After} &gt;
 *       the body ({@code RetryInfo}, then "try again in …" text) &gt; reset headers of the limit
 *       that was hit (only on 429). The IETF {@code t} parameter is a reset header, so
 *       {@code Retry-After} beats it. Waits are clamped to {@link ProviderSignal#MAX_DELAY_MILLIS}.
 *   <li>A 429 asking for a wait of an hour or more is quota exhaustion, not a rate limit: the limit
 *       hit becomes {@link LimitKind#DAILY_QUOTA} and it is not retryable.
 *   <li>Not retryable: OpenAI {@code insufficient_quota} and "Request too large", Anthropic spend
 *       caps, Gemini zero or per-day quotas, client errors other than 409. {@code x-should-retry}
 *       overrides all of this, as it does in the official SDKs.
 *   <li>Malformed values (garbage, negative, NaN, over-long, broken JSON) are ignored and counted;
 *       nothing is thrown for any header or body content.
 * </ul>
 */
public final class SignalNormaliser {

    /** A 429 asking for at least this long a wait is treated as quota exhaustion. */
    static final long QUOTA_WAIT_MILLIS = 60L * 60 * 1000;

    private static final Set<String> PERMANENT_REASONS = Set.of(
            ProviderSignal.REASON_INSUFFICIENT_QUOTA, ProviderSignal.REASON_REQUEST_TOO_LARGE,
            ProviderSignal.REASON_SPEND_LIMIT, ProviderSignal.REASON_ZERO_QUOTA,
            ProviderSignal.REASON_QUOTA_EXHAUSTED);

    /**
     * Lower-case prefixes of every header a 2xx response is read for: vendor and IETF limit fields,
     * the retry hints and {@code x-should-retry}. A 2xx without any of them is a plain success, and
     * the 40-odd names need not be probed one by one.
     */
    static final List<String> SIGNAL_HEADER_PREFIXES = List.of("x-ratelimit-", "ratelimit", "anthropic-ratelimit-",
            "anthropic-priority-", "retry-after", "x-ms-retry", "x-should-retry");

    private final ProviderKind kind;

    /** A normaliser for one provider dialect. */
    public SignalNormaliser(ProviderKind kind) {
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** The dialect this normaliser reads. */
    public ProviderKind kind() {
        return kind;
    }

    /**
     * Normalises one HTTP response.
     *
     * @param httpStatus the response status
     * @param headers the response headers (names matched without regard to case)
     * @param body the response body, or "" when absent; read only for non-2xx responses
     * @param nowEpochMillis when the response arrived, to turn HTTP-dates and RFC 3339 resets into
     *     relative waits
     * @return the signal; never null
     */
    public ProviderSignal normalise(int httpStatus, Headers headers, String body, long nowEpochMillis) {
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(body, "body");
        SignalStatus status = statusOf(httpStatus);
        if (status == SignalStatus.SUCCESS && !headers.anyNameStartsWith(SIGNAL_HEADER_PREFIXES)) {
            return new ProviderSignal(status, httpStatus, Optional.empty(), OptionalLong.empty(), false,
                    List.of(), ProviderSignal.REASON_OK, 0);
        }
        Malformed malformed = new Malformed();
        HeaderValues values = new HeaderValues(headers, malformed);

        List<LimitObservation> observations = new ArrayList<>();
        if (kind == ProviderKind.OPENAI || kind == ProviderKind.AZURE_OPENAI || kind == ProviderKind.OPENAI_COMPATIBLE) {
            observations.addAll(VendorHeaders.openAi(values));
        }
        if (kind == ProviderKind.ANTHROPIC || kind == ProviderKind.OPENAI_COMPATIBLE) {
            observations.addAll(VendorHeaders.anthropic(values, nowEpochMillis));
        }
        RateLimitFields.Result ietf = RateLimitFields.read(values);
        observations.addAll(ietf.observations());
        OptionalLong retryAfterMs = RetryHeaders.millisHeader(values, "retry-after-ms");
        OptionalLong azureRetryAfterMs = RetryHeaders.millisHeader(values, "x-ms-retry-after-ms");
        OptionalLong retryAfter = RetryHeaders.retryAfter(values, nowEpochMillis);
        Optional<Boolean> shouldRetry = RetryHeaders.shouldRetry(values);

        if (status == SignalStatus.SUCCESS) {
            return new ProviderSignal(status, httpStatus, Optional.empty(), OptionalLong.empty(), false,
                    observations, ProviderSignal.REASON_OK, malformed.count());
        }
        ErrorBody.Facts facts = ErrorBody.read(body, malformed);
        observations.addAll(facts.observations());
        boolean rateLimited = status == SignalStatus.RATE_LIMITED;
        boolean permanentBody = facts.reason().filter(PERMANENT_REASONS::contains).isPresent();

        Optional<LimitKind> limitHit = rateLimited || permanentBody ? facts.limitHit() : Optional.empty();
        if (rateLimited && limitHit.isEmpty()) {
            limitHit = violatedPolicy(facts.violatedPolicies(), ietf).or(() -> exhausted(observations));
        }
        OptionalLong wait = firstPresent(retryAfterMs, azureRetryAfterMs, retryAfter, facts.waitMillis());
        if (wait.isEmpty() && rateLimited) {
            wait = resetWait(limitHit, observations);
        }
        if (wait.isPresent()) {
            wait = OptionalLong.of(Math.min(wait.getAsLong(), ProviderSignal.MAX_DELAY_MILLIS));
        }
        String reason = rateLimited || permanentBody
                ? facts.reason().orElse(defaultReason(status, httpStatus))
                : defaultReason(status, httpStatus);
        if (rateLimited && wait.isPresent() && wait.getAsLong() >= QUOTA_WAIT_MILLIS
                && !limitHit.equals(Optional.of(LimitKind.SPEND_QUOTA))) {
            limitHit = Optional.of(LimitKind.DAILY_QUOTA);
        }
        if (limitHit.equals(Optional.of(LimitKind.DAILY_QUOTA)) && !PERMANENT_REASONS.contains(reason)) {
            reason = ProviderSignal.REASON_QUOTA_EXHAUSTED;
        }
        boolean retryable = retryableStatus(status, httpStatus)
                && !PERMANENT_REASONS.contains(reason)
                && !limitHit.equals(Optional.of(LimitKind.SPEND_QUOTA));
        if (shouldRetry.isPresent()) {
            retryable = shouldRetry.get();
        }
        Optional<String> owner = rateLimited ? facts.quotaOwner() : Optional.empty();
        return new ProviderSignal(status, httpStatus, limitHit, wait, retryable, observations, reason, malformed.count(),
                owner);
    }

    /** A call that got no answer in time: retryable, and nothing else is known. */
    public static ProviderSignal timeout() {
        return noResponse(SignalStatus.TIMEOUT, ProviderSignal.REASON_TIMEOUT);
    }

    /** A call that got no HTTP response at all (refused, reset, DNS, TLS): retryable, nothing else known. */
    public static ProviderSignal connectionFailed() {
        return noResponse(SignalStatus.CONNECTION_FAILED, ProviderSignal.REASON_CONNECTION_FAILED);
    }

    private static ProviderSignal noResponse(SignalStatus status, String reason) {
        return new ProviderSignal(status, 0, Optional.empty(), OptionalLong.empty(), true, List.of(), reason, 0);
    }

    static SignalStatus statusOf(int httpStatus) {
        if (httpStatus >= 200 && httpStatus <= 299) {
            return SignalStatus.SUCCESS;
        }
        return switch (httpStatus) {
            case 429 -> SignalStatus.RATE_LIMITED;
            case 503, 529 -> SignalStatus.OVERLOADED;
            case 408, 504 -> SignalStatus.TIMEOUT;
            default -> httpStatus >= 400 && httpStatus <= 499 ? SignalStatus.CLIENT_ERROR : SignalStatus.SERVER_ERROR;
        };
    }

    private static String defaultReason(SignalStatus status, int httpStatus) {
        return switch (status) {
            case SUCCESS -> ProviderSignal.REASON_OK;
            case RATE_LIMITED -> ProviderSignal.REASON_RATE_LIMITED;
            case OVERLOADED -> ProviderSignal.REASON_OVERLOADED;
            case TIMEOUT -> ProviderSignal.REASON_TIMEOUT;
            case CONNECTION_FAILED -> ProviderSignal.REASON_CONNECTION_FAILED;
            case SERVER_ERROR -> httpStatus >= 500 && httpStatus <= 599
                    ? ProviderSignal.REASON_SERVER_ERROR
                    : ProviderSignal.REASON_UNEXPECTED_STATUS;
            case CLIENT_ERROR -> switch (httpStatus) {
                case 409 -> ProviderSignal.REASON_CONFLICT;
                case 413 -> ProviderSignal.REASON_REQUEST_TOO_LARGE;
                default -> ProviderSignal.REASON_CLIENT_ERROR;
            };
        };
    }

    /** What the official SDKs retry: 408, 409, 429 and 5xx. An unexpected 1xx/3xx is not retried. */
    private static boolean retryableStatus(SignalStatus status, int httpStatus) {
        return switch (status) {
            case RATE_LIMITED, OVERLOADED, TIMEOUT, CONNECTION_FAILED -> true;
            case SERVER_ERROR -> httpStatus >= 500 && httpStatus <= 599;
            case CLIENT_ERROR -> httpStatus == 409;
            case SUCCESS -> false;
        };
    }

    /** IETF problem+json {@code violated-policies}, resolved through the RateLimit-Policy field. */
    private static Optional<LimitKind> violatedPolicy(List<String> names, RateLimitFields.Result ietf) {
        List<LimitKind> kinds = names.stream()
                .map(name -> ietf.kindByPolicy().getOrDefault(name, LimitKind.UNKNOWN))
                .toList();
        return kinds.contains(LimitKind.DAILY_QUOTA) ? Optional.of(LimitKind.DAILY_QUOTA) : kinds.stream().findFirst();
    }

    /** On a 429 without a named limit, the limit the headers report as empty is the one that bit. */
    private static Optional<LimitKind> exhausted(List<LimitObservation> observations) {
        return observations.stream()
                .filter(o -> o.remaining().isPresent() && o.remaining().getAsLong() == 0)
                .map(LimitObservation::kind)
                .findFirst();
    }

    /**
     * The last resort for a wait: when the limit that was hit (or, failing that, every exhausted
     * limit) is reset. The longest one, because all of them must have room again.
     */
    private static OptionalLong resetWait(Optional<LimitKind> limitHit, List<LimitObservation> observations) {
        OptionalLong ofHit = observations.stream()
                .filter(o -> limitHit.isPresent() && o.kind() == limitHit.get())
                .filter(o -> o.resetAfterMillis().isPresent())
                .mapToLong(o -> o.resetAfterMillis().getAsLong())
                .max();
        if (ofHit.isPresent()) {
            return ofHit;
        }
        return observations.stream()
                .filter(o -> o.remaining().isPresent() && o.remaining().getAsLong() == 0)
                .filter(o -> o.resetAfterMillis().isPresent())
                .mapToLong(o -> o.resetAfterMillis().getAsLong())
                .max();
    }

    private static OptionalLong firstPresent(OptionalLong... candidates) {
        for (OptionalLong candidate : candidates) {
            if (candidate.isPresent()) {
                return candidate;
            }
        }
        return OptionalLong.empty();
    }

    @Override
    public String toString() {
        return "SignalNormaliser[" + kind + "]";
    }
}
