package dev.sluice.estimate;

import java.util.Locale;
import java.util.Optional;

/** How much output a request reserves before it is sent. */
public enum OutputReservation {
    /**
     * min(max_tokens, the route's recent p95): right where the provider counts output as it is
     * produced (Anthropic today) or not at all (Gemini has no output limit).
     */
    LEARNED,
    /**
     * The whole max_tokens (or the profile's default): right where the provider charges it against
     * its token limit on arrival and corrects at the end (OpenAI and Azure OpenAI). Reserving less
     * leaves the provider's bucket emptier than ours, and the difference comes back as 429s.
     */
    MAX_TOKENS;

    /** The name in configuration files: {@code learned}, {@code max_tokens}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<OutputReservation> fromConfigName(String name) {
        for (OutputReservation r : values()) {
            if (r.configName().equals(name)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
