package dev.sluice.runtime.request;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what every request and reservation went through, so tests (and the admin view) can
 * check the gateway's two promises: every request gets exactly one answer, and every reservation
 * ends (settled or released). Thread-safe; counting is a few atomic increments.
 */
public final class RequestCounters {

    private final AtomicLong started = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong duplicateAnswers = new AtomicLong();
    private final AtomicLong reservationsOpened = new AtomicLong();
    private final AtomicLong reservationsSettled = new AtomicLong();
    private final AtomicLong reservationsReleased = new AtomicLong();
    private final AtomicLong localRejections = new AtomicLong();
    private final AtomicLong providerRejections = new AtomicLong();
    private final AtomicLong gatewayRetries = new AtomicLong();

    /** A request arrived. */
    public void recordStarted() {
        started.incrementAndGet();
    }

    /** A request got its (first) terminal answer. */
    public void recordAnswered() {
        answered.incrementAndGet();
    }

    /** Something tried to answer a request a second time (a bug; tests assert zero). */
    public void recordDuplicateAnswer() {
        duplicateAnswers.incrementAndGet();
    }

    public void recordReservationOpened() {
        reservationsOpened.incrementAndGet();
    }

    public void recordReservationSettled() {
        reservationsSettled.incrementAndGet();
    }

    public void recordReservationReleased() {
        reservationsReleased.incrementAndGet();
    }

    public void recordLocalRejection() {
        localRejections.incrementAndGet();
    }

    public void recordProviderRejection() {
        providerRejections.incrementAndGet();
    }

    public void recordGatewayRetry() {
        gatewayRetries.incrementAndGet();
    }

    /** Requests that arrived. */
    public long started() {
        return started.get();
    }

    /** Requests that got a terminal answer. */
    public long answered() {
        return answered.get();
    }

    /** Second answers attempted for one request; always 0 unless there is a bug. */
    public long duplicateAnswers() {
        return duplicateAnswers.get();
    }

    /** Requests still waiting for their answer. */
    public long inFlight() {
        return started.get() - answered.get();
    }

    public long reservationsOpened() {
        return reservationsOpened.get();
    }

    public long reservationsSettled() {
        return reservationsSettled.get();
    }

    public long reservationsReleased() {
        return reservationsReleased.get();
    }

    /** Reservations neither settled nor released yet. */
    public long reservationsOpen() {
        return reservationsOpened.get() - reservationsSettled.get() - reservationsReleased.get();
    }

    /** Requests refused by the governor (429 before reaching a provider). */
    public long localRejections() {
        return localRejections.get();
    }

    /** Provider 429s after admission that were passed on to the client. */
    public long providerRejections() {
        return providerRejections.get();
    }

    /** Extra upstream attempts the gateway made after a provider 429. */
    public long gatewayRetries() {
        return gatewayRetries.get();
    }

    /** Whether every request that arrived was answered once and every reservation ended. */
    public boolean balanced() {
        return inFlight() == 0 && reservationsOpen() == 0 && duplicateAnswers.get() == 0;
    }

    @Override
    public String toString() {
        return "RequestCounters[started=" + started + " answered=" + answered + " duplicates=" + duplicateAnswers
                + " reservations opened=" + reservationsOpened + " settled=" + reservationsSettled + " released="
                + reservationsReleased + " localRejections=" + localRejections + " providerRejections="
                + providerRejections + " retries=" + gatewayRetries + "]";
    }
}
