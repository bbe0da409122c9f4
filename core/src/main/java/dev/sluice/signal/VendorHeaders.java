package dev.sluice.signal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/** The vendor limit header families: OpenAI/Azure {@code x-ratelimit-*} and Anthropic's. */
final class VendorHeaders {

    /**
     * The names of one limit's three headers and its source label, built once: a response is
     * probed for every family, and concatenating names per probe showed up in profiles.
     */
    private record Family(String limit, String remaining, String reset, String source, LimitKind kind) {}

    /** OpenAI's documented pair, the usage-based variants seen in 2025, and project-scoped ones. */
    private static final List<Family> OPENAI_FAMILIES = Stream.of(
            "requests", "tokens", "requests_usage_based", "tokens_usage_based",
            "project-requests", "project-tokens")
            .map(suffix -> new Family("x-ratelimit-limit-" + suffix, "x-ratelimit-remaining-" + suffix,
                    "x-ratelimit-reset-" + suffix, "x-ratelimit-*-" + suffix,
                    suffix.contains("requests") ? LimitKind.REQUESTS : LimitKind.TOKENS))
            .toList();

    private static final List<Family> ANTHROPIC_FAMILIES = List.of(
            anthropic("anthropic-ratelimit-requests", LimitKind.REQUESTS),
            anthropic("anthropic-ratelimit-tokens", LimitKind.TOKENS),
            anthropic("anthropic-ratelimit-input-tokens", LimitKind.INPUT_TOKENS),
            anthropic("anthropic-ratelimit-output-tokens", LimitKind.OUTPUT_TOKENS),
            anthropic("anthropic-priority-input-tokens", LimitKind.INPUT_TOKENS),
            anthropic("anthropic-priority-output-tokens", LimitKind.OUTPUT_TOKENS));

    private static Family anthropic(String prefix, LimitKind kind) {
        return new Family(prefix + "-limit", prefix + "-remaining", prefix + "-reset", prefix + "-*", kind);
    }

    private VendorHeaders() {}

    /** {@code x-ratelimit-{limit,remaining,reset}-<suffix>}; resets are Go durations or bare seconds. */
    static List<LimitObservation> openAi(HeaderValues headers) {
        List<LimitObservation> observations = new ArrayList<>();
        for (Family family : OPENAI_FAMILIES) {
            OptionalLong limit = headers.count(family.limit());
            OptionalLong remaining = headers.count(family.remaining());
            OptionalLong reset = headers.first(family.reset())
                    .map(value -> relativeReset(value, headers))
                    .orElse(OptionalLong.empty());
            add(observations, family.kind(), limit, remaining, headers.boundedReset(reset), family.source());
        }
        return observations;
    }

    /** {@code anthropic-ratelimit-*-{limit,remaining,reset}}; resets are RFC 3339 instants. */
    static List<LimitObservation> anthropic(HeaderValues headers, long nowEpochMillis) {
        List<LimitObservation> observations = new ArrayList<>();
        for (Family family : ANTHROPIC_FAMILIES) {
            OptionalLong limit = headers.count(family.limit());
            OptionalLong remaining = headers.count(family.remaining());
            OptionalLong reset = OptionalLong.empty();
            Optional<String> resetText = headers.first(family.reset());
            if (resetText.isPresent()) {
                OptionalLong at = Rfc3339.parseEpochMillis(resetText.get());
                reset = at.isPresent()
                        ? OptionalLong.of(Values.millisUntil(at.getAsLong(), nowEpochMillis))
                        : headers.reject();
            }
            add(observations, family.kind(), limit, remaining, headers.boundedReset(reset), family.source());
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
