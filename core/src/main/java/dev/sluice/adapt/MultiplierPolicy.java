package dev.sluice.adapt;

/**
 * The multiplier's arithmetic: multiplicative decrease, additive increase under a learned ceiling,
 * and the headerless estimate of that ceiling. Pure functions.
 */
final class MultiplierPolicy {

    private static final double NANOS_PER_MINUTE = 60e9;

    private MultiplierPolicy() {}

    /** After a fresh 429 or overload: {@code m * decrease}, not below the floor. */
    static double decrease(double m, MultiplierConfig c) {
        return Math.max(c.floor(), m * c.decrease());
    }

    /** After a success: {@code m + increase}, not above {@code ceiling}. */
    static double increase(double m, double ceiling, MultiplierConfig c) {
        return Math.min(ceiling, m + c.increasePerSuccess());
    }

    /**
     * After {@code cleanNanos} more of clean time (past {@code cleanRecoveryAfter} since the last
     * fresh refusal): {@code m + increasePerCleanSecond} per second, not above {@code ceiling}, and
     * never lower than {@code m} (a multiplier already above a ceiling is not pulled down here).
     */
    static double recoverByTime(double m, double ceiling, long cleanNanos, MultiplierConfig c) {
        double step = c.increasePerCleanSecond() * Math.max(0, cleanNanos) / 1e9;
        return Math.max(m, Math.min(ceiling, m + step));
    }

    /**
     * What the provider really sustains, as a fraction of the configured rate, judged from a window
     * that ended in a refusal: requests went out at about {@code meanFactor} of the configured rate
     * and only the successful share of them was absorbed. Never below {@code floor}.
     */
    static double ceilingEstimate(double meanFactor, long successes, long limited, double floor) {
        long answers = successes + limited;
        if (answers == 0) {
            return 1.0;
        }
        double estimate = meanFactor * successes / answers;
        return Math.max(floor, Math.min(1.0, estimate));
    }

    /** The ceiling after {@code elapsedNanos} of clean answers: up by {@code perMinute}, at most 1. */
    static double recoverCeiling(double ceiling, long elapsedNanos, double perMinute) {
        return Math.min(1.0, ceiling + perMinute * Math.max(0, elapsedNanos) / NANOS_PER_MINUTE);
    }

    /**
     * The multiplier re-expressed against a new base: the deployment now runs at {@code newBase}
     * of the configured limit instead of {@code oldBase}, so the same absolute rate is a larger
     * share of it. At most 1.
     */
    static double rebase(double m, double oldBase, double newBase) {
        return Math.min(1.0, m * oldBase / newBase);
    }
}
