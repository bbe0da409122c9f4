package dev.sluice.governor;

import java.util.Optional;

/**
 * A deployment's operating mode as admission sees it: whether a request of a class may proceed to
 * the buckets at all, and whether admitted work runs in brownout. The adaptive controller
 * implements this; the governor asks it before touching any bucket, so a shed request costs no
 * capacity and no paid model execution.
 */
public interface DeploymentGuard {

    /** Empty to let the request proceed; a rejection to refuse it now. */
    Optional<Rejection> screen(TrafficClass trafficClass, long nowNanos);

    /** Whether admitted work should run trimmed (brownout). */
    boolean brownout(long nowNanos);

    /** A guard that lets everything through. */
    static DeploymentGuard open() {
        return OpenGuard.INSTANCE;
    }
}

enum OpenGuard implements DeploymentGuard {
    INSTANCE;

    @Override
    public Optional<Rejection> screen(TrafficClass trafficClass, long nowNanos) {
        return Optional.empty();
    }

    @Override
    public boolean brownout(long nowNanos) {
        return false;
    }
}
