package dev.sluice.mock.http;

import dev.sluice.mock.http.Route.Endpoint;
import dev.sluice.mock.limits.Admission;
import dev.sluice.mock.limits.LimitSnapshot;
import dev.sluice.mock.limits.ProviderLimits;
import io.vertx.core.MultiMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the mock would send, without HTTP: the rate-limit headers of an answer and the whole 429 of
 * a rejection, exactly as {@link MockProviderServer} writes them. For the simulator (which runs the
 * {@link dev.sluice.mock.limits.ProviderLimitModel} in virtual time and still wants provider-shaped
 * signals) and for tests of header parsers.
 */
public final class ProviderWire {

    /** The request id used when there is no real request. */
    public static final String SIMULATED_REQUEST_ID = "req_simulated";

    private ProviderWire() {}

    /**
     * A rejection as sent.
     *
     * @param status the HTTP status (429)
     * @param contentType its content type
     * @param body the body text
     * @param headers the headers, names in lower case, in the order written
     */
    public record Rejection(int status, String contentType, String body, Map<String, List<String>> headers) {
        public Rejection {
            headers = Map.copyOf(headers);
        }

        /** The first value of a header, if sent. */
        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(java.util.Locale.ROOT))).map(List::getFirst);
        }
    }

    /** The rate-limit headers (and IETF fields when configured) of a successful answer. */
    public static Map<String, List<String>> successHeaders(MockConfig config, ProviderLimits limits,
            LimitSnapshot snapshot, long epochMillis) {
        MultiMap h = MultiMap.caseInsensitiveMultiMap();
        limitHeaders(h, config, limits, snapshot, epochMillis);
        return toMap(h);
    }

    /**
     * The 429 for a request the model refused.
     *
     * @param rejection an {@link Admission.Limited} or {@link Admission.TooLarge}
     * @param model the model named in messages
     */
    public static Rejection rejection(MockConfig config, ProviderLimits limits, Admission rejection, String model,
            LimitSnapshot snapshot, long epochMillis) {
        Objects.requireNonNull(rejection, "rejection");
        ErrorWire errors = new ErrorWire(config.flavour(), model, SIMULATED_REQUEST_ID,
                config.flavour() == Flavour.ANTHROPIC ? Endpoint.MESSAGES : Endpoint.CHAT, "2024-10-21");
        ErrorReply reply = switch (rejection) {
            case Admission.Limited l -> errors.limited(l, snapshot, config.rateLimitBody());
            case Admission.TooLarge t -> errors.tooLarge(t, snapshot, config.rateLimitBody());
            case Admission.Accepted a -> throw new IllegalArgumentException("rejection: " + a + " (expected: Limited or TooLarge)");
        };
        MultiMap h = MultiMap.caseInsensitiveMultiMap();
        errorHeaders(h, config, config.faults().shouldRetry(), limits, reply, Optional.of(snapshot), epochMillis);
        return new Rejection(reply.status(), reply.contentType(), reply.body().toString(), toMap(h));
    }

    private static Map<String, List<String>> toMap(MultiMap h) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String name : h.names()) {
            out.put(name.toLowerCase(java.util.Locale.ROOT), List.copyOf(h.getAll(name)));
        }
        return out;
    }

    // ---- shared with the server -------------------------------------------------------------------

    static void idHeaders(MultiMap h, Flavour flavour, String requestId) {
        switch (flavour) {
            case OPENAI -> {
                h.set("x-request-id", requestId);
                h.set("openai-version", "2020-10-01");
                h.set("openai-organization", "sluice-mock");
                h.set("openai-processing-ms", "1");
            }
            case AZURE_OPENAI -> {
                h.set("x-request-id", requestId);
                h.set("apim-request-id", requestId);
            }
            case ANTHROPIC -> {
                h.set("request-id", requestId);
                h.set("anthropic-organization-id", "sluice-mock");
            }
            case GEMINI -> { }
        }
    }

    static void limitHeaders(MultiMap h, MockConfig config, ProviderLimits limits, LimitSnapshot snapshot,
            long epochMillis) {
        LimitHeaders.rateLimit(h, config.flavour(), config.headerMode(), snapshot, epochMillis);
        if (config.ietfHeaders()) {
            LimitHeaders.ietf(h, snapshot, limits, config.ietfSplitLines());
        }
    }

    static void errorHeaders(MultiMap h, MockConfig config, ShouldRetry shouldRetry, ProviderLimits limits,
            ErrorReply reply, Optional<LimitSnapshot> snapshot, long epochMillis) {
        snapshot.ifPresent(s -> limitHeaders(h, config, limits, s, epochMillis));
        if (reply.hasHint()) {
            LimitHeaders.retryHints(h, config.retryAfter(), reply.hintMillis(), epochMillis);
        }
        switch (shouldRetry) {
            case TRUE -> h.set("x-should-retry", "true");
            case FALSE -> h.set("x-should-retry", "false");
            case ABSENT -> { }
        }
        h.set("content-type", reply.contentType());
    }
}
