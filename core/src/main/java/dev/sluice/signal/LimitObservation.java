package dev.sluice.signal;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One limit as a response described it. Each field is empty unless the response stated it.
 *
 * @param kind what the limit counts
 * @param limit the ceiling of the window, if stated
 * @param remaining what is left in the window, if stated (Anthropic rounds token counts to 1,000)
 * @param resetAfterMillis milliseconds from the response until the limit is replenished (OpenAI and
 *     Anthropic: fully replenished; IETF {@code t}: until more quota is available), at most 24 h
 * @param source the header family or body field it was read from, for diagnostics
 */
public record LimitObservation(
        LimitKind kind,
        OptionalLong limit,
        OptionalLong remaining,
        OptionalLong resetAfterMillis,
        String source) {

    /** Validates every field; an observation is never negative or beyond the 24 h delay cap. */
    public LimitObservation {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(remaining, "remaining");
        Objects.requireNonNull(resetAfterMillis, "resetAfterMillis");
        Objects.requireNonNull(source, "source");
        requireNonNegative("limit", limit);
        requireNonNegative("remaining", remaining);
        requireNonNegative("resetAfterMillis", resetAfterMillis);
        if (resetAfterMillis.isPresent() && resetAfterMillis.getAsLong() > ProviderSignal.MAX_DELAY_MILLIS) {
            throw new IllegalArgumentException("resetAfterMillis: " + resetAfterMillis.getAsLong()
                    + " (expected: <= " + ProviderSignal.MAX_DELAY_MILLIS + ")");
        }
        if (source.isBlank()) {
            throw new IllegalArgumentException("source: blank (expected: the header or field it came from)");
        }
    }

    private static void requireNonNegative(String name, OptionalLong value) {
        if (value.isPresent() && value.getAsLong() < 0) {
            throw new IllegalArgumentException(name + ": " + value.getAsLong() + " (expected: >= 0)");
        }
    }
}
