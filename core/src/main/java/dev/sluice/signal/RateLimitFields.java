package dev.sluice.signal;

import dev.sluice.signal.StructuredFields.Bare;
import dev.sluice.signal.StructuredFields.Item;
import dev.sluice.signal.StructuredFields.SfInteger;
import dev.sluice.signal.StructuredFields.SfString;
import dev.sluice.signal.StructuredFields.SfToken;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10): {@code RateLimit-Policy}
 * ({@code "burst";q=100;w=60}) joined by policy name with {@code RateLimit} ({@code "burst";r=50;t=30}),
 * plus the obsolete draft-06 trio {@code RateLimit-Limit/-Remaining/-Reset}.
 */
final class RateLimitFields {

    /** Windows of a day or more are daily quotas whatever their unit. */
    private static final long DAY_SECONDS = 86_400;
    private static final int MAX_NAME_IN_SOURCE = 64;

    /** What the fields said: one observation per policy, and each policy's kind for problem+json. */
    record Result(List<LimitObservation> observations, Map<String, LimitKind> kindByPolicy) {}

    private record Policy(LimitKind kind, long quota) {}

    private record Current(long remaining, OptionalLong resetAfterMillis) {}

    private RateLimitFields() {}

    static Result read(HeaderValues headers) {
        Map<String, Policy> policies = new LinkedHashMap<>();
        for (Item item : items(headers, "ratelimit-policy")) {
            Optional<String> name = name(item);
            OptionalLong quota = nonNegative(item.params().get("q"));
            Bare window = item.params().get("w");
            OptionalLong windowSeconds = nonNegative(window);
            if (name.isEmpty() || quota.isEmpty() || (window != null && !(windowSeconds.orElse(0) > 0))) {
                headers.malformed().add();
                continue;
            }
            policies.putIfAbsent(name.get(), new Policy(kind(item.params().get("qu"), windowSeconds), quota.getAsLong()));
        }
        Map<String, Current> current = new LinkedHashMap<>();
        for (Item item : items(headers, "ratelimit")) {
            Optional<String> name = name(item);
            OptionalLong remaining = nonNegative(item.params().get("r"));
            Bare reset = item.params().get("t");
            OptionalLong resetSeconds = nonNegative(reset);
            if (name.isEmpty() || remaining.isEmpty() || (reset != null && resetSeconds.isEmpty())) {
                headers.malformed().add();
                continue;
            }
            OptionalLong resetMillis = resetSeconds.isPresent()
                    ? headers.boundedReset(OptionalLong.of(resetSeconds.getAsLong() * 1000))
                    : OptionalLong.empty();
            current.putIfAbsent(name.get(), new Current(remaining.getAsLong(), resetMillis));
        }
        List<LimitObservation> observations = new ArrayList<>();
        Map<String, LimitKind> kindByPolicy = new LinkedHashMap<>();
        policies.forEach((name, policy) -> {
            Current now = current.remove(name);
            kindByPolicy.put(name, policy.kind());
            observations.add(new LimitObservation(policy.kind(), OptionalLong.of(policy.quota()),
                    now == null ? OptionalLong.empty() : OptionalLong.of(now.remaining()),
                    now == null ? OptionalLong.empty() : now.resetAfterMillis(), source(name)));
        });
        current.forEach((name, now) -> {
            kindByPolicy.put(name, LimitKind.UNKNOWN);
            observations.add(new LimitObservation(LimitKind.UNKNOWN, OptionalLong.empty(),
                    OptionalLong.of(now.remaining()), now.resetAfterMillis(), source(name)));
        });
        obsolete(headers).ifPresent(observations::add);
        return new Result(List.copyOf(observations), Map.copyOf(kindByPolicy));
    }

    /** Draft-06 and earlier: a leading integer limit, remaining, and reset in delta-seconds. */
    private static Optional<LimitObservation> obsolete(HeaderValues headers) {
        OptionalLong limit = headers.first("ratelimit-limit")
                .map(value -> leadingCount(value, headers))
                .orElse(OptionalLong.empty());
        OptionalLong remaining = headers.count("ratelimit-remaining");
        OptionalLong resetSeconds = headers.count("ratelimit-reset");
        // Saturate before scaling; anything that large fails the 24 h bound anyway.
        OptionalLong reset = headers.boundedReset(resetSeconds.isPresent()
                ? OptionalLong.of(Math.min(resetSeconds.getAsLong(), Long.MAX_VALUE / 1000) * 1000)
                : resetSeconds);
        if (limit.isEmpty() && remaining.isEmpty() && reset.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new LimitObservation(LimitKind.UNKNOWN, limit, remaining, reset, "RateLimit-Limit"));
    }

    /** {@code 100} or the older {@code 100, 100;w=60}: the first number is the limit. */
    private static OptionalLong leadingCount(String value, HeaderValues headers) {
        int end = 0;
        while (end < value.length() && value.charAt(end) != ',' && value.charAt(end) != ';') {
            end++;
        }
        OptionalLong count = Values.nonNegativeInteger(value.substring(0, end).strip());
        return count.isPresent() ? count : headers.reject();
    }

    private static List<Item> items(HeaderValues headers, String name) {
        Optional<String> field = headers.joined(name, StructuredFields.MAX_LENGTH);
        if (field.isEmpty()) {
            return List.of();
        }
        Optional<List<Item>> items = StructuredFields.parseList(field.get());
        if (items.isEmpty()) {
            headers.malformed().add();
            return List.of();
        }
        return items.get();
    }

    /** Policy names are Strings since draft-08; earlier drafts and some servers send Tokens. */
    private static Optional<String> name(Item item) {
        return switch (item.value()) {
            case SfString s -> Optional.of(s.value());
            case SfToken t -> Optional.of(t.value());
            default -> Optional.empty();
        };
    }

    private static OptionalLong nonNegative(Bare value) {
        return value instanceof SfInteger i && i.value() >= 0 ? OptionalLong.of(i.value()) : OptionalLong.empty();
    }

    private static LimitKind kind(Bare unit, OptionalLong windowSeconds) {
        String qu = switch (unit) {
            case SfString s -> s.value();
            case SfToken t -> t.value();
            case null -> "requests";
            default -> "";
        };
        LimitKind kind = switch (qu) {
            case "requests" -> LimitKind.REQUESTS;
            case "concurrent-requests" -> LimitKind.CONCURRENCY;
            case "tokens" -> LimitKind.TOKENS;
            case "input-tokens" -> LimitKind.INPUT_TOKENS;
            case "output-tokens" -> LimitKind.OUTPUT_TOKENS;
            default -> LimitKind.UNKNOWN;
        };
        boolean daily = windowSeconds.isPresent() && windowSeconds.getAsLong() >= DAY_SECONDS;
        return daily && kind != LimitKind.CONCURRENCY ? LimitKind.DAILY_QUOTA : kind;
    }

    private static String source(String policyName) {
        String name = policyName.length() > MAX_NAME_IN_SOURCE ? policyName.substring(0, MAX_NAME_IN_SOURCE) : policyName;
        return "RateLimit \"" + name + "\"";
    }
}
