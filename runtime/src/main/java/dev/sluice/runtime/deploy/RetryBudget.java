package dev.sluice.runtime.deploy;

/**
 * Caps the gateway's own retries of provider 429s at a fraction of first attempts, per
 * deployment, like a token bucket: every first attempt deposits a tenth of a retry (up to a
 * reserve of ten), every retry spends one. Under a storm of 429s retries stop once the small
 * reserve is spent, so the gateway never multiplies the load on a struggling provider. Counted in
 * thousandths so ten deposits make exactly one retry. The simulator applies the same budget.
 */
public final class RetryBudget {

    private static final long ONE_RETRY = 1_000;

    private final long depositPerAttempt;
    private final long cap;
    private long balance;

    /**
     * @param ratio retries allowed per first attempt, in [0, 1]; 0.1 is "at most 10% extra attempts"
     * @param reserve the most retries that may be saved up
     */
    public RetryBudget(double ratio, int reserve) {
        if (!(ratio >= 0 && ratio <= 1)) {
            throw new IllegalArgumentException("ratio: " + ratio + " (expected: in [0, 1])");
        }
        this.depositPerAttempt = Math.round(ratio * ONE_RETRY);
        this.cap = reserve * ONE_RETRY;
    }

    /** At most one extra attempt per ten first attempts. */
    public static RetryBudget tenPercent() {
        return new RetryBudget(0.10, 10);
    }

    /** Counts a first attempt: a tenth of a retry more, up to the reserve. */
    public synchronized void firstAttempt() {
        balance = Math.min(cap, balance + depositPerAttempt);
    }

    /** Takes one retry if the budget allows. */
    public synchronized boolean tryRetry() {
        if (balance >= ONE_RETRY) {
            balance -= ONE_RETRY;
            return true;
        }
        return false;
    }
}
