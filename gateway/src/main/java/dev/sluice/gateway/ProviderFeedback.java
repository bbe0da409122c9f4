package dev.sluice.gateway;

import dev.sluice.signal.ProviderSignal;

/**
 * Receives every provider response (and every failed call) as a normalised signal, so adaptive
 * control can tune the deployment. Called on an event-loop thread: implementations must be quick
 * and must not block.
 */
@FunctionalInterface
public interface ProviderFeedback {

    /** One upstream attempt ended with {@code signal} on {@code deployment}. */
    void onResponse(String deployment, ProviderSignal signal);

    /**
     * The same, with how long the provider took to answer (to response headers, or to the failure).
     * The gateway calls this one; by default it forgets the latency.
     */
    default void onResponse(String deployment, ProviderSignal signal, long latencyNanos) {
        onResponse(deployment, signal);
    }

    /** Feedback that goes nowhere. */
    static ProviderFeedback none() {
        return (deployment, signal) -> {};
    }
}
