package dev.sluice.runtime.alert;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One alert: a rule that holds for a scope. No secret is ever in it (scopes are configured ids).
 *
 * @param name the rule ({@code provider_429_rate}, {@code queue_growth} ...)
 * @param severity {@code info}, {@code warning} or {@code critical}
 * @param scope what it is about ({@code deployment:east})
 * @param sinceEpochMillis when it fired, wall time
 * @param value what was read at the last evaluation while it held
 * @param threshold what {@code value} was judged against
 * @param sentence what it means, in one sentence
 * @param resolvedAtEpochMillis when it stopped holding; empty while active
 */
public record Alert(String name, String severity, String scope, long sinceEpochMillis, double value, double threshold,
        String sentence, OptionalLong resolvedAtEpochMillis) {

    public Alert {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(sentence, "sentence");
        Objects.requireNonNull(resolvedAtEpochMillis, "resolvedAtEpochMillis");
    }

    /** Whether it still holds. */
    public boolean active() {
        return resolvedAtEpochMillis.isEmpty();
    }

    /** What changed at an evaluation. */
    public sealed interface Change permits Fired, Resolved {
        Alert alert();
    }

    /** A rule began to hold. */
    public record Fired(Alert alert) implements Change {}

    /** A rule that held no longer does. */
    public record Resolved(Alert alert) implements Change {}
}
