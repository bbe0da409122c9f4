package dev.sluice.governor;

import java.util.Objects;
import java.util.concurrent.CompletionStage;

/** The governor's answer to {@link QuotaGovernor#admit}. */
public sealed interface Decision permits Decision.Final, Decision.Queued {

    /** An answer that will not change: admitted or rejected. */
    sealed interface Final extends Decision permits Admitted, Rejected {}

    /**
     * Capacity is reserved on every bucket of the path. Dispatch, then settle or release.
     *
     * @param reservation the hold to settle with actual usage
     * @param queuedNanos how long the request waited in its queue (0 if it did not)
     * @param sharedWaitNanos the part of that wait spent on capacity shared with other tenants
     *     (the deployment, profile or organisation): all of it, unless the request was last held
     *     back by its own tenant's, team's or key's limits, when it is 0. Only this part says the
     *     deployment is under pressure; a tenant running into its own quota says nothing about it.
     * @param brownout the deployment is in brownout: optional work should be trimmed
     * @param borrowed its tenant has guaranteed minimums on this deployment and already met them all
     *     when it was admitted: it runs on capacity beyond its guarantee, lent by the others
     */
    record Admitted(Reservation reservation, long queuedNanos, long sharedWaitNanos, boolean brownout,
            boolean borrowed) implements Final {
        public Admitted {
            Objects.requireNonNull(reservation, "reservation");
        }

        /** Admitted within its tenant's guarantee, or with none. */
        public Admitted(Reservation reservation, long queuedNanos, long sharedWaitNanos, boolean brownout) {
            this(reservation, queuedNanos, sharedWaitNanos, brownout, false);
        }
    }

    /** Refused; nothing is held. */
    record Rejected(Rejection rejection) implements Final {
        public Rejected {
            Objects.requireNonNull(rejection, "rejection");
        }
    }

    /**
     * Waiting in the class queue. {@code outcome} completes, on whichever thread drives the governor
     * ({@link QuotaGovernor#onTimer} or a settlement), with an admission or a rejection, at the latest
     * by the request's deadline. It completes exceptionally only if the quota store itself failed
     * (a remote store that cannot be reached), with the store's exception.
     *
     * @param expectedWaitNanos the wait foreseen at the rate in force when it was queued
     * @param explanation why it waits: the bucket and dimension short when it arrived, the
     *     predicted wait against its budget
     * @param outcome completes exactly once
     * @param withdrawal takes the request out of the queue when its client has gone
     */
    record Queued(long expectedWaitNanos, Explanation explanation, CompletionStage<Final> outcome,
            Withdrawal withdrawal) implements Decision {
        public Queued {
            Objects.requireNonNull(explanation, "explanation");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(withdrawal, "withdrawal");
        }
    }

    /** Takes a queued request out of its queue. */
    @FunctionalInterface
    interface Withdrawal {
        /**
         * The client has gone: the request leaves its queue at once, holds nothing, is charged
         * nothing (its tenant's share and place in fair order are as if it never came), and its
         * outcome completes with a {@code client_gone} rejection that no listener hears of.
         *
         * @return false when it was already decided (admitted, rejected): then whatever it was
         *     admitted with must be released as usual
         */
        boolean withdraw();
    }
}
