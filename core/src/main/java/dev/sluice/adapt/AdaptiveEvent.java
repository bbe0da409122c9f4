package dev.sluice.adapt;

/**
 * Something the adaptive controller did to a deployment, for metrics, logs and the dashboard.
 * Delivered to {@link AdaptiveListener}s after the controller has applied it.
 */
public sealed interface AdaptiveEvent permits ModeTransition, LimitDrift, CooldownStarted, CapacitySynced,
        RampChanged {

    /** The deployment it concerns. */
    String deployment();

    /** When it happened, on the governor's clock. */
    long atNanos();
}
