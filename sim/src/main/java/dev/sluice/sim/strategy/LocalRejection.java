package dev.sluice.sim.strategy;

import java.util.Objects;

/**
 * A refusal by the gateway, before any provider call.
 *
 * @param decision the {@code gateway_decision} (or the strategy's own word for it)
 * @param code a machine-readable cause
 * @param retryAfterMillis the hint the client reads
 * @param retryable whether the client may try again
 */
public record LocalRejection(String decision, String code, long retryAfterMillis, boolean retryable) {
    public LocalRejection {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(code, "code");
    }
}
