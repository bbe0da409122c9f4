package dev.sluice.governor;

import java.util.Locale;

/** Why a request did not reach the provider, or what happened when it did: the error's {@code gateway_decision}. */
public enum GatewayDecision {
    /** Capacity was short and waiting would exceed the class budget or the deadline; or the request is too large. */
    REJECTED_LOCALLY,
    /** The request waited in its class queue and its budget or deadline ran out first. */
    QUEUED_THEN_TIMED_OUT,
    /** The deployment is under pressure (load shedding, or background work in brownout). */
    SHED_UNDER_PRESSURE,
    /** The key or deployment is paused by an operator. */
    PAUSED,
    /** A daily cap is spent. */
    BUDGET_EXHAUSTED,
    /** Admitted, then refused by the provider: a calibration failure, counted as one. */
    ADMITTED_THEN_PROVIDER_REJECTED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
