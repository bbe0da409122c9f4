package dev.sluice.runtime.event;

import java.util.Objects;
import java.util.Optional;

/**
 * What decided a local refusal or a wait: the limiter (dimension) and the bucket's scope, and the
 * provider window when a short window rather than the minute bound.
 *
 * @param limiter the dimension, {@code input_tpm}, or {@code none}
 * @param scope the bucket, {@code tenant:acme}, {@code deployment:openai-east}, or {@code gateway}
 * @param window the window that bound, such as {@code 1s}; empty for the limit's own period
 */
public record Decider(String limiter, String scope, Optional<String> window) {

    public Decider {
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(window, "window");
    }
}
