package dev.sluice.governor;

import dev.sluice.store.SettleOutcome;

/**
 * Sees what the governor decides, for metrics, logs, the usage ledger and estimators that learn
 * from settled usage. Called on the thread that drove the decision; must be quick and must not
 * call back into the governor.
 */
public interface GovernorListener {

    /** A request got its final answer (at once, or after waiting). */
    default void onDecision(AdmissionRequest request, Decision.Final decision) {}

    /** A reservation ended; {@code actual} is empty-usage for a release. */
    default void onSettled(Reservation reservation, Usage actual, SettleOutcome outcome) {}

    /** Leases expired unsettled. */
    default void onLeasesExpired(int count) {}
}
