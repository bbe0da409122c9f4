package dev.sluice.governor;

import dev.sluice.store.ReserveOutcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A queued request. Lives in one {@link Lane}; guarded by the lane's monitor. */
final class Waiter {

    final AdmissionRequest request;
    final long[] amounts;
    final TenantShare share;
    final long enqueuedAt;
    /**
     * The earlier of the caller's deadline (less the call's own expected duration) and the class's
     * wait budget; moved earlier once, by {@link Lane#learnService}, when it was queued before the
     * call's duration was known.
     */
    long giveUpAt;
    /** Its place in fair order; moves earlier when a waiter of its flow ahead of it leaves unserved. */
    double startTag;
    /** How far it moved its tenant's tags on: its cost over the tenant's weight. */
    double span;
    final long seq;
    /** Time this request alone occupies the deployment at its configured rate. */
    final long costNanos;
    final CompletableFuture<Decision.Final> outcome = new CompletableFuture<>();
    Optional<ReserveOutcome.Short> lastShort = Optional.empty();
    /** Still in its flow: false once served, given up on or withdrawn, so that it leaves only once. */
    boolean inQueue = true;
    /** Its give-up time is set by its deadline less the call's own duration, not by its class's wait budget. */
    boolean deadlineBound;
    /** Why it waits, as judged when it was queued. */
    Explanation explanation;

    Waiter(AdmissionRequest request, long[] amounts, TenantShare share, long enqueuedAt, long giveUpAt,
            double startTag, long seq, long costNanos) {
        this.request = request;
        this.amounts = amounts;
        this.share = share;
        this.enqueuedAt = enqueuedAt;
        this.giveUpAt = giveUpAt;
        this.startTag = startTag;
        this.seq = seq;
        this.costNanos = costNanos;
    }
}
