package dev.sluice.signal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** The vendor limit header families: OpenAI/Azure {@code x-ratelimit-*} and Anthropic's. */
final class VendorHeaders {

    /** OpenAI's documented pair, the usage-based variants seen in 2025, and project-scoped ones. */
    private static final List<String> OPENAI_SUFFIXES = List.of(
            "requests", "tokens", "requests_usage_based", "tokens_usage_based",
            "project-requests", "project-tokens");

    private record Family(String prefix, LimitKind kind) {}

    private static final List<Family> ANTHROPIC_FAMILIES = List.of(
            new Family("anthropic-ratelimit-requests", LimitKind.REQUESTS),
            new Family("anthropic-ratelimit-tokens", LimitKind.TOKENS),
            new Family("anthropic-ratelimit-input-tokens", LimitKind.INPUT_TOKENS),
            new Family("anthropic-ratelimit-output-tokens", LimitKind.OUTPUT_TOKENS),
            new Family("anthropic-priority-input-tokens", LimitKind.INPUT_TOKENS),
            new Family("anthropic-priority-output-tokens", LimitKind.OUTPUT_TOKENS));

    private VendorHeaders() {}

    /** {@code x-ratelimit-{limit,remaining,reset}-<suffix>}; resets are Go durations or bare seconds. */
    static List<LimitObservation> openAi(HeaderValues headers) {
        List<LimitObservation> observations = new ArrayList<>();
        for (String suffix : OPENAI_SUFFIXES) {
            OptionalLong limit = headers.count("x-ratelimit-limit-" + suffix);
            OptionalLong remaining = headers.count("x-ratelimit-remaining-" + suffix);
            OptionalLong reset = headers.first("x-ratelimit-reset-" + suffix)
                    .map(value -> relativeReset(value, headers))
                    .orElse(OptionalLong.empty());
            LimitKind kind = suffix.contains("requests") ? LimitKind.REQUESTS : LimitKind.TOKENS;
            add(observations, kind, limit, remaining, headers.boundedReset(reset), "x-ratelimit-*-" + suffix);
        }
        return observations;
    }

    /** {@code anthropic-ratelimit-*-{limit,remaining,reset}}; resets are RFC 3339 instants. */
    static List<LimitObservation> anthropic(HeaderValues headers, long nowEpochMillis) {
        List<LimitObservation> observations = new ArrayList<>();
        for (Family family : ANTHROPIC_FAMILIES) {
            OptionalLong limit = headers.count(family.prefix() + "-limit");
            OptionalLong remaining = headers.count(family.prefix() + "-remaining");
            OptionalLong reset = OptionalLong.empty();
            Optional<String> resetText = headers.first(family.prefix() + "-reset");
            if (resetText.isPresent()) {
                OptionalLong at = Rfc3339.parseEpochMillis(resetText.get());
                reset = at.isPresent()
                        ? OptionalLong.of(Values.millisUntil(at.getAsLong(), nowEpochMillis))
                        : headers.reject();
            }
            add(observations, family.kind(), limit, remaining, headers.boundedReset(reset), family.prefix() + "-*");
        }
        return observations;
    }

    /**
     * A relative reset: Azure sends bare seconds ({@code 10}), OpenAI Go durations ({@code 6m0s});
     * {@code -1} is Azure's "unknown".
     */
    private static OptionalLong relativeReset(String value, HeaderValues headers) {
        if (value.equals("-1")) {
            return OptionalLong.empty();
        }
        OptionalLong seconds = Values.decimalMillis(value, 1000);
        if (seconds.isPresent()) {
            return seconds;
        }
        OptionalLong duration = GoDuration.parseMillis(value);
        return duration.isPresent() ? duration : headers.reject();
    }

    private static void add(List<LimitObservation> to, LimitKind kind, OptionalLong limit,
            OptionalLong remaining, OptionalLong reset, String source) {
        if (limit.isPresent() || remaining.isPresent() || reset.isPresent()) {
            to.add(new LimitObservation(kind, limit, remaining, reset, source));
        }
    }
}
