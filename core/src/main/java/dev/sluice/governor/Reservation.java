package dev.sluice.governor;

import dev.sluice.store.LeaseHandle;
import dev.sluice.store.SettleOutcome;

/**
 * Capacity held for one admitted request: a lease with a time to live. End it with
 * {@link #settle} once the provider has answered (also for errors and broken streams, with
 * whatever was produced), or {@link #release} if it was never sent. Either is idempotent; a lease
 * that is never ended expires and gives its concurrency back.
 */
public final class Reservation {

    private final QuotaGovernor governor;
    private final Lane lane;
    private final LeaseHandle lease;
    private final AdmissionRequest request;
    private final long admittedAtNanos;
    /** What the reservation cost of the deployment's configured rate (its lane's unit): refunded in part at settlement. */
    private final long costNanos;

    Reservation(QuotaGovernor governor, Lane lane, LeaseHandle lease, AdmissionRequest request, long admittedAtNanos,
            long costNanos) {
        this.governor = governor;
        this.lane = lane;
        this.lease = lease;
        this.request = request;
        this.admittedAtNanos = admittedAtNanos;
        this.costNanos = costNanos;
    }

    /** The store's lease id. */
    public String id() {
        return lease.id();
    }

    public AdmissionRequest request() {
        return request;
    }

    public long admittedAtNanos() {
        return admittedAtNanos;
    }

    /** Replaces the estimate by {@code actual}: refunds what was unused, carries overage as debt. */
    public SettleOutcome settle(Usage actual) {
        return governor.settle(this, actual);
    }

    /** Gives everything back: the request never reached the provider. */
    public SettleOutcome release() {
        return governor.release(this);
    }

    Lane lane() {
        return lane;
    }

    long costNanos() {
        return costNanos;
    }

    LeaseHandle lease() {
        return lease;
    }

    @Override
    public String toString() {
        return "Reservation[" + lease.id() + " " + request.requestId() + "]";
    }
}
