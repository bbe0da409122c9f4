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

    /** Feedback that goes nowhere. */
    static ProviderFeedback none() {
        return (deployment, signal) -> {};
    }
}
