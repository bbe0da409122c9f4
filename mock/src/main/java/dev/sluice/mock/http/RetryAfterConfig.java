package dev.sluice.mock.http;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The wait hints on a 429 (and on overload errors).
 *
 * @param form how {@code Retry-After} is written
 * @param retryAfterMs whether {@code retry-after-ms} is sent too
 * @param fixedDelay a delay to announce regardless of the limit (e.g. 90 s or 200 s to separate SDK
 *     behaviours, 0 for {@code retry-after-ms: 0}); empty to announce the model's own wait
 */
public record RetryAfterConfig(RetryAfterForm form, boolean retryAfterMs, Optional<Duration> fixedDelay) {

    public RetryAfterConfig {
        Objects.requireNonNull(form, "form");
        Objects.requireNonNull(fixedDelay, "fixedDelay");
        fixedDelay.ifPresent(d -> {
            if (d.isNegative()) {
                throw new IllegalArgumentException("fixedDelay: " + d + " (expected: >= 0)");
            }
        });
    }

    /** The hint each provider sends by default: Azure both headers, Gemini none, others whole seconds. */
    public static RetryAfterConfig defaultFor(Flavour flavour) {
        return switch (flavour) {
            case OPENAI, ANTHROPIC -> of(RetryAfterForm.INTEGER_SECONDS, false);
            case AZURE_OPENAI -> of(RetryAfterForm.INTEGER_SECONDS, true);
            case GEMINI -> of(RetryAfterForm.ABSENT, false);
        };
    }

    public static RetryAfterConfig of(RetryAfterForm form, boolean retryAfterMs) {
        return new RetryAfterConfig(form, retryAfterMs, Optional.empty());
    }

    /** The same headers, always announcing {@code delay}. */
    public RetryAfterConfig withFixedDelay(Duration delay) {
        return new RetryAfterConfig(form, retryAfterMs, Optional.of(delay));
    }
}
