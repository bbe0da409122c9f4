package dev.sluice.runtime.request;

import dev.sluice.governor.Reservation;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.deploy.LiveDeployments;
import dev.sluice.signal.ProviderSignal;
import java.util.Objects;

/**
 * One try of a request on one deployment, holding its reservation. The transport sends it
 * ({@link #sending}), tells it when the answer starts ({@link #responseHead}, {@link #streamHead}) and ends it once
 * with {@link #finish}; everything that follows from how it ended is decided there, once.
 */
public final class Attempt {

    private final RequestLifecycle request;
    private final int number;
    private final DeploymentConfig deployment;
    /** The version of the deployment it runs on, open until its reservation ends. */
    private final LiveDeployments.Version version;
    private final Reservation reservation;
    private final long queuedNanos;
    private final boolean brownout;
    /** Whether an earlier attempt on this reservation reached the provider (a retry after a 429). */
    private final boolean reservationUsed;
    private long sentAtNanos = -1;
    private long sentAtEpochMillis;
    private long headAtNanos = -1;
    private long firstContentAtNanos = -1;
    private boolean fed;
    /** How it ended; null while it runs. */
    private AttemptOutcome finished;

    Attempt(RequestLifecycle request, int number, LiveDeployments.Version version, Reservation reservation,
            long queuedNanos, boolean brownout, boolean reservationUsed) {
        this.request = request;
        this.number = number;
        this.version = Objects.requireNonNull(version, "version");
        this.deployment = version.config();
        this.reservation = Objects.requireNonNull(reservation, "reservation");
        this.queuedNanos = queuedNanos;
        this.brownout = brownout;
        this.reservationUsed = reservationUsed;
    }

    /** 1 for the first attempt of a request. */
    public int number() {
        return number;
    }

    public DeploymentConfig deployment() {
        return deployment;
    }

    /** The version of its deployment it runs on: a change may retire it while the attempt runs. */
    LiveDeployments.Version version() {
        return version;
    }

    public RequestPlan plan() {
        return request.planned();
    }

    /** How long the request waited in its class queue for this attempt's capacity. */
    public long queuedNanos() {
        return queuedNanos;
    }

    /** Whether the deployment was in brownout at admission: optional output should be trimmed. */
    public boolean brownout() {
        return brownout;
    }

    /** Whether {@link #sending} was called. */
    public boolean sent() {
        return sentAtNanos >= 0;
    }

    /** Whether {@link #finish} has been called. */
    public boolean finished() {
        return finished != null;
    }

    boolean reservationUsed() {
        return reservationUsed;
    }

    Reservation reservation() {
        return reservation;
    }

    long sentAtNanos() {
        return sentAtNanos;
    }

    long sentAtEpochMillis() {
        return sentAtEpochMillis;
    }

    long headAtNanos() {
        return headAtNanos;
    }

    long firstContentAtNanos() {
        return firstContentAtNanos;
    }

    /** The call is about to leave for the provider. */
    public void sending() {
        sentAtNanos = request.runtime().clock().nanos();
        sentAtEpochMillis = request.runtime().clock().epochMillis();
        if (number == 1) {
            version.retryBudget().firstAttempt();
        }
    }

    /** The provider's answer began (its status and headers arrived). */
    public void responseHead() {
        headAtNanos = request.runtime().clock().nanos();
    }

    /**
     * A stream's answer began with {@code signal}: fed to adaptive control now, not when the
     * stream ends minutes later, since its headers describe the limits as they are now.
     */
    public void streamHead(ProviderSignal signal) {
        responseHead();
        if (!fed) {
            fed = true;
            request.runtime().feed(deployment.id(), signal, headAtNanos - sentAtNanos, request.planned().trafficClass());
        }
    }

    /** The first bytes of the answer's body arrived: its time to first token. */
    public void firstContent() {
        if (firstContentAtNanos < 0) {
            firstContentAtNanos = request.runtime().clock().nanos();
            request.firstContent(firstContentAtNanos);
        }
    }

    /**
     * Ends this attempt: settles or releases its reservation (or keeps it for a retry), feeds
     * adaptive control unless the answer's head already did, teaches the estimator, decides
     * whether to try again, and emits the attempt's event. Called exactly once.
     *
     * @throws IllegalStateException when called a second time
     */
    public AfterAttempt finish(AttemptOutcome outcome) {
        if (finished != null) {
            throw new IllegalStateException("attempt " + number + " of " + request.traceId() + " finished twice: "
                    + finished.getClass().getSimpleName() + ", then " + outcome.getClass().getSimpleName());
        }
        finished = outcome;
        return request.finished(this, outcome, fed);
    }
}
