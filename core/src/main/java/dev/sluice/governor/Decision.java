package dev.sluice.governor;

import dev.sluice.store.ReserveOutcome;
import java.util.Objects;
import java.util.Optional;
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
     */
    record Admitted(Reservation reservation, long queuedNanos, long sharedWaitNanos, boolean brownout)
            implements Final {
        public Admitted {
            Objects.requireNonNull(reservation, "reservation");
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
     * @param expectedWaitNanos the wait foreseen by refill arithmetic when it was queued
     * @param outcome completes exactly once
     * @param cause the shortfall it waits on when it found the buckets short (its scope, dimension,
     *     and whether the class reserve held it back: {@link ReserveOutcome.Short#headroomBound});
     *     empty when it queued behind others of its class or a higher one
     */
    record Queued(long expectedWaitNanos, CompletionStage<Final> outcome, Optional<ReserveOutcome.Short> cause)
            implements Decision {
        public Queued {
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(cause, "cause");
        }

        /** Queued behind others, with no shortfall of its own to name. */
        public Queued(long expectedWaitNanos, CompletionStage<Final> outcome) {
            this(expectedWaitNanos, outcome, Optional.empty());
        }
    }
}
