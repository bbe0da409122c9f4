package dev.sluice.adapt;

import java.util.Objects;

/**
 * A deployment changed operating mode.
 *
 * @param deployment the deployment
 * @param from the mode before
 * @param to the mode after
 * @param reason the signal and value that decided it, e.g. {@code "429 ratio 0.31 >= 0.25"}
 * @param atNanos when, on the governor's clock
 */
public record ModeTransition(String deployment, Mode from, Mode to, String reason, long atNanos)
        implements AdaptiveEvent {

    public ModeTransition {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(reason, "reason");
    }
}
