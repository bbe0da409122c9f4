package dev.sluice.mock.http;

import dev.sluice.mock.limits.Gauge;
import dev.sluice.mock.limits.LimitKind;
import dev.sluice.mock.limits.LimitSnapshot;
import dev.sluice.mock.limits.ProviderLimits;
import io.vertx.core.MultiMap;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Rate-limit and wait-hint headers in each provider's form, and the IETF RateLimit fields. */
final class LimitHeaders {

    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private LimitHeaders() {}

    /** The policy name a limit has in IETF headers and problem bodies. */
    static String policyName(LimitKind kind) {
        return switch (kind) {
            case REQUESTS, ACCELERATION -> "requests";
            case REQUESTS_PER_DAY -> "daily";
            case CONCURRENCY -> "concurrency";
            case INPUT_TOKENS -> "input-tokens";
            case OUTPUT_TOKENS -> "output-tokens";
            case TOKENS -> "tokens";
        };
    }

    // ---- provider headers -------------------------------------------------------------------------

    static void rateLimit(MultiMap h, Flavour flavour, HeaderMode mode, LimitSnapshot s, long epochMillis) {
        if (mode == HeaderMode.NONE) {
            return;
        }
        switch (flavour) {
            case OPENAI -> openAiStyle(h, mode, requestsPerMinute(s), tokens(s), GoDuration::format);
            case AZURE_OPENAI -> openAiStyle(h, mode, s.gauge(LimitKind.REQUESTS), tokens(s),
                    ms -> Long.toString(Wire.ceilSeconds(ms)));
            case ANTHROPIC -> anthropic(h, mode, s, epochMillis);
            case GEMINI -> {
                // Gemini documents no rate-limit headers.
            }
        }
    }

    /**
     * Requests over the trailing minute against {@code rpm}. Like the providers' own headers this can
     * show requests left while the current sub-window is full: bursts are refused below the
     * per-minute figure.
     */
    private static Optional<Gauge> requestsPerMinute(LimitSnapshot s) {
        return s.requestsPerMinute();
    }

    /** The one token limit OpenAI-style headers report: total, else input, else output. */
    private static Optional<Gauge> tokens(LimitSnapshot s) {
        return s.gauge(LimitKind.TOKENS).or(() -> s.gauge(LimitKind.INPUT_TOKENS))
                .or(() -> s.gauge(LimitKind.OUTPUT_TOKENS));
    }

    private static void openAiStyle(MultiMap h, HeaderMode mode, Optional<Gauge> requests, Optional<Gauge> tokens,
            java.util.function.LongFunction<String> reset) {
        requests.ifPresent(g -> {
            h.set("x-ratelimit-limit-requests", Long.toString(g.limit()));
            h.set("x-ratelimit-remaining-requests", Long.toString(g.remaining()));
            if (mode != HeaderMode.LIMIT_AND_REMAINING_ONLY) {
                h.set("x-ratelimit-reset-requests", reset.apply(g.resetMillis()));
            }
        });
        if (mode == HeaderMode.UNKNOWN_TOKENS) {
            h.set("x-ratelimit-limit-tokens", "-1");
            h.set("x-ratelimit-remaining-tokens", "-1");
            h.set("x-ratelimit-reset-tokens", reset.apply(0));
            return;
        }
        tokens.ifPresent(g -> {
            h.set("x-ratelimit-limit-tokens", Long.toString(g.limit()));
            h.set("x-ratelimit-remaining-tokens", Long.toString(g.remaining()));
            if (mode != HeaderMode.LIMIT_AND_REMAINING_ONLY) {
                h.set("x-ratelimit-reset-tokens", reset.apply(g.resetMillis()));
            }
        });
    }

    private static void anthropic(MultiMap h, HeaderMode mode, LimitSnapshot s, long epochMillis) {
        Optional<Gauge> input = s.gauge(LimitKind.INPUT_TOKENS);
        Optional<Gauge> output = s.gauge(LimitKind.OUTPUT_TOKENS);
        Optional<Gauge> combined = input.isPresent() && output.isPresent()
                ? Optional.of(new Gauge(input.get().limit() + output.get().limit(),
                        input.get().remaining() + output.get().remaining(),
                        Math.max(input.get().resetNanos(), output.get().resetNanos())))
                : input.or(() -> output);
        Optional<Gauge> tokens = s.gauge(LimitKind.TOKENS)
                .map(t -> combined.filter(c -> c.remainingFraction() < t.remainingFraction()).orElse(t))
                .or(() -> combined);
        anthropicTriplet(h, mode, "requests", requestsPerMinute(s), false, epochMillis);
        anthropicTriplet(h, mode, "tokens", tokens, true, epochMillis);
        anthropicTriplet(h, mode, "input-tokens", input, true, epochMillis);
        anthropicTriplet(h, mode, "output-tokens", output, true, epochMillis);
    }

    private static void anthropicTriplet(MultiMap h, HeaderMode mode, String name, Optional<Gauge> gauge,
            boolean tokens, long epochMillis) {
        gauge.ifPresent(g -> {
            String prefix = "anthropic-ratelimit-" + name + "-";
            if (tokens && mode == HeaderMode.UNKNOWN_TOKENS) {
                h.set(prefix + "limit", "-1");
                h.set(prefix + "remaining", "-1");
                return;
            }
            h.set(prefix + "limit", Long.toString(g.limit()));
            long remaining = tokens ? Math.min(g.limit(), Math.round(g.remaining() / 1000.0) * 1000) : g.remaining();
            h.set(prefix + "remaining", Long.toString(remaining));
            if (mode != HeaderMode.LIMIT_AND_REMAINING_ONLY) {
                h.set(prefix + "reset", rfc3339(epochMillis + g.resetMillis()));
            }
        });
    }

    /** RFC 3339 in UTC with a {@code Z}, whole seconds rounded up so the time is never early. */
    static String rfc3339(long epochMillis) {
        return Instant.ofEpochSecond(Math.ceilDiv(epochMillis, 1000L)).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    // ---- IETF RateLimit fields --------------------------------------------------------------------

    static void ietf(MultiMap h, LimitSnapshot s, ProviderLimits limits, boolean splitLines) {
        List<String> policies = new ArrayList<>();
        List<String> states = new ArrayList<>();
        for (var entry : s.gauges().entrySet()) {
            LimitKind kind = entry.getKey();
            Gauge g = entry.getValue();
            String name = "\"" + policyName(kind) + "\"";
            String window = switch (kind) {
                case REQUESTS -> ";w=" + Math.max(1, Wire.ceilSeconds(limits.requestWindow().toMillis()));
                case REQUESTS_PER_DAY -> ";w=86400";
                case CONCURRENCY -> ";qu=\"concurrent-requests\"";
                default -> ";w=60";
            };
            policies.add(name + ";q=" + g.limit() + window);
            states.add(name + ";r=" + g.remaining() + ";t=" + Wire.ceilSeconds(g.resetMillis()));
        }
        if (policies.isEmpty()) {
            return;
        }
        if (splitLines) {
            h.add("RateLimit-Policy", policies);
            h.add("RateLimit", states);
        } else {
            h.set("RateLimit-Policy", String.join(", ", policies));
            h.set("RateLimit", String.join(", ", states));
        }
    }

    // ---- wait hints -------------------------------------------------------------------------------

    static void retryHints(MultiMap h, RetryAfterConfig config, long hintMillis, long epochMillis) {
        long delay = config.fixedDelay().map(java.time.Duration::toMillis).orElse(hintMillis);
        switch (config.form()) {
            case ABSENT -> { }
            case INTEGER_SECONDS -> h.set("retry-after", Long.toString(Wire.ceilSeconds(delay)));
            case FRACTIONAL_SECONDS -> {
                String s = Wire.seconds(delay);
                h.set("retry-after", s.contains(".") ? s : s + ".0");
            }
            case HTTP_DATE -> h.set("retry-after",
                    IMF_FIXDATE.format(Instant.ofEpochSecond(Math.ceilDiv(epochMillis + delay, 1000L))));
            case PAST_HTTP_DATE -> h.set("retry-after",
                    IMF_FIXDATE.format(Instant.ofEpochMilli(epochMillis).minusSeconds(3_600)));
            case GARBAGE -> h.set("retry-after", "in a little while");
        }
        if (config.retryAfterMs()) {
            h.set("retry-after-ms", Long.toString(delay));
        }
    }
}
