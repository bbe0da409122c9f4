package dev.sluice.mock.limits;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * How a provider enforces and reports its limits, beyond their sizes ({@link ProviderLimits}): one
 * member of the family {@link ProviderFamily} draws from. {@link #REFERENCE} is the model the mock
 * has always been: requests in fixed sub-windows of {@link ProviderLimits#requestWindow()}, token
 * limits as buckets holding a minute, prompts counted exactly, the wait to the next window
 * announced, fresh headers, no warm-up, no unannounced change.
 *
 * @param name how reports name it: {@code reference}, or {@code m<index>} for a drawn member
 * @param enforcement per limit ({@link LimitKind#REQUESTS}, {@code INPUT_TOKENS}, {@code OUTPUT_TOKENS},
 *     {@code TOKENS}), how it is enforced over a short window; a limit absent here is enforced as the
 *     reference model does
 * @param counting how the provider counts prompt tokens
 * @param retryAfter what the announced wait means
 * @param headers whether rate-limit headers are sent, and fresh
 * @param headerStaleness with {@link HeaderReport#STALE}, how old the reported state may be
 * @param warmUp a new deployment's growing allowance, if any
 * @param changes unannounced limit changes, in time order
 */
public record ProviderBehaviour(String name, Map<LimitKind, Enforcement> enforcement, TokenCounting counting,
        RetryAfterMeaning retryAfter, HeaderReport headers, Duration headerStaleness, Optional<WarmUp> warmUp,
        List<LimitChange> changes) {

    /** The rate limits an {@link Enforcement} may apply to. */
    public static final List<LimitKind> RATE_LIMITS =
            List.of(LimitKind.REQUESTS, LimitKind.INPUT_TOKENS, LimitKind.OUTPUT_TOKENS, LimitKind.TOKENS);

    /** Today's mock, exactly: the model every scenario and test meant before the family existed. */
    public static final ProviderBehaviour REFERENCE = new ProviderBehaviour("reference", Map.of(),
            TokenCounting.EXACT, RetryAfterMeaning.NEXT_WINDOW, HeaderReport.PRESENT, Duration.ZERO,
            Optional.empty(), List.of());

    public ProviderBehaviour {
        Objects.requireNonNull(name, "name");
        EnumMap<LimitKind, Enforcement> copy = new EnumMap<>(LimitKind.class);
        enforcement.forEach((k, v) -> {
            if (!RATE_LIMITS.contains(k)) {
                throw new IllegalArgumentException("enforcement: " + k + " (expected: one of " + RATE_LIMITS + ")");
            }
            copy.put(k, Objects.requireNonNull(v, "enforcement of " + k));
        });
        enforcement = Collections.unmodifiableMap(copy);
        Objects.requireNonNull(counting, "counting");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(headerStaleness, "headerStaleness");
        if (headerStaleness.isNegative()) {
            throw new IllegalArgumentException("headerStaleness: " + headerStaleness + " (expected: >= 0)");
        }
        Objects.requireNonNull(warmUp, "warmUp");
        changes = List.copyOf(changes);
    }

    /**
     * The share of the configured rate limits in force: the warm-up's share times every unannounced
     * change in force.
     *
     * @param sinceStartNanos time since the model started
     * @param sinceFirstUseNanos time since the first request; negative before it
     */
    public double rateFactor(long sinceStartNanos, long sinceFirstUseNanos) {
        double f = warmUp.map(w -> w.factor(sinceFirstUseNanos)).orElse(1.0);
        for (LimitChange c : changes) {
            if (c.activeAt(sinceStartNanos)) {
                f *= c.factor();
            }
        }
        return f;
    }

    /** Whether this provider cuts its limits by itself (a warm-up or an unannounced change). */
    public boolean changesLimits() {
        return warmUp.isPresent() || !changes.isEmpty();
    }

    public ProviderBehaviour withName(String value) {
        return new ProviderBehaviour(value, enforcement, counting, retryAfter, headers, headerStaleness, warmUp, changes);
    }

    public ProviderBehaviour withEnforcement(LimitKind kind, Enforcement value) {
        EnumMap<LimitKind, Enforcement> m = new EnumMap<>(LimitKind.class);
        m.putAll(enforcement);
        m.put(kind, value);
        return new ProviderBehaviour(name, m, counting, retryAfter, headers, headerStaleness, warmUp, changes);
    }

    public ProviderBehaviour withCounting(TokenCounting value) {
        return new ProviderBehaviour(name, enforcement, value, retryAfter, headers, headerStaleness, warmUp, changes);
    }

    public ProviderBehaviour withRetryAfter(RetryAfterMeaning value) {
        return new ProviderBehaviour(name, enforcement, counting, value, headers, headerStaleness, warmUp, changes);
    }

    public ProviderBehaviour withHeaders(HeaderReport value, Duration staleness) {
        return new ProviderBehaviour(name, enforcement, counting, retryAfter, value, staleness, warmUp, changes);
    }

    public ProviderBehaviour withWarmUp(Optional<WarmUp> value) {
        return new ProviderBehaviour(name, enforcement, counting, retryAfter, headers, headerStaleness, value, changes);
    }

    public ProviderBehaviour withChanges(List<LimitChange> value) {
        return new ProviderBehaviour(name, enforcement, counting, retryAfter, headers, headerStaleness, warmUp, value);
    }

    /** One line for reports: every axis that differs from the reference. */
    public String describe() {
        StringJoiner j = new StringJoiner(", ", name + " [", "]");
        enforcement.forEach((k, e) -> j.add(k.name().toLowerCase(Locale.ROOT) + " " + e));
        if (!counting.equals(TokenCounting.EXACT)) {
            j.add(String.format(Locale.ROOT, "prompt x%.3f +%d", counting.factor(), counting.perRequest()));
        }
        if (retryAfter != RetryAfterMeaning.NEXT_WINDOW) {
            j.add("retry-after " + retryAfter.name().toLowerCase(Locale.ROOT));
        }
        if (headers != HeaderReport.PRESENT) {
            j.add("headers " + headers.name().toLowerCase(Locale.ROOT)
                    + (headers == HeaderReport.STALE ? " " + headerStaleness.toMillis() + "ms" : ""));
        }
        warmUp.ifPresent(w -> j.add(String.format(Locale.ROOT, "warm-up %.2f doubling %ds", w.initial(),
                w.doubling().toSeconds())));
        for (LimitChange c : changes) {
            j.add(String.format(Locale.ROOT, "x%.2f %ds-%ds", c.factor(), c.at().toSeconds(), c.until().toSeconds()));
        }
        return j.toString();
    }
}
