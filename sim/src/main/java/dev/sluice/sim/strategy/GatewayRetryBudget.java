package dev.sluice.sim.strategy;

/**
 * The gateway's cap on its own retries of provider 429s, per deployment, as the gateway applies it:
 * each first attempt earns a tenth of a retry, at most ten retries are saved up, each retry spends
 * one. Counted in thousandths so ten first attempts make exactly one retry.
 */
final class GatewayRetryBudget {

    private static final long ONE = 1_000;
    private static final long DEPOSIT = 100;
    private static final long CAP = 10 * ONE;

    private long balance;

    void firstAttempt() {
        balance = Math.min(CAP, balance + DEPOSIT);
    }

    boolean tryRetry() {
        if (balance < ONE) {
            return false;
        }
        balance -= ONE;
        return true;
    }
}
