package dev.sluice.gateway.proxy;

/**
 * Caps the gateway's own retries of provider 429s at a fraction of first attempts, per
 * deployment, like a token bucket: every first attempt deposits {@code ratio} of a token (up to
 * {@code cap}), every retry spends one. Under a storm of 429s retries stop after the small
 * reserve is spent, so the gateway never multiplies the load on a struggling provider.
 */
final class RetryBudget {

    /** At most one extra attempt per ten first attempts. */
    static final double DEFAULT_RATIO = 0.10;
    /** A burst of ten retries after a quiet spell. */
    static final double DEFAULT_CAP = 10;

    private final double ratio;
    private final double cap;
    private double tokens;

    RetryBudget(double ratio, double cap) {
        this.ratio = ratio;
        this.cap = cap;
    }

    synchronized void firstAttempt() {
        tokens = Math.min(cap, tokens + ratio);
    }

    /** Takes one retry if the budget allows. */
    synchronized boolean tryRetry() {
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
