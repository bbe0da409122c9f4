package dev.sluice.adapt;

/**
 * The multiplier's arithmetic: multiplicative decrease, additive increase under a learned ceiling
 * (per success, and per clean second at a speed halved after each refusal that ends a climb by
 * clean time), and the headerless estimate of that ceiling. Pure functions.
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
     * The most times the climb by clean time is halved: at worst it runs at a sixteenth of
     * {@code increasePerCleanSecond} (+0.000625 a second by default, a cut from full rate undone in
     * about nine minutes instead of 35 s).
     */
    static final int MAX_CLIMB_SLOWDOWNS = 4;

    /**
     * After {@code cleanNanos} more of clean time (past {@code cleanRecoveryAfter} since the last
     * fresh refusal), with the climb slowed {@code slowdowns} times:
     * {@code min(ceiling, m + increasePerCleanSecond * cleanSeconds / 2^slowdowns)}, and never lower
     * than {@code m} (a multiplier already above a ceiling is not pulled down here).
     */
    static double recoverByTime(double m, double ceiling, long cleanNanos, int slowdowns, MultiplierConfig c) {
        int k = Math.max(0, Math.min(MAX_CLIMB_SLOWDOWNS, slowdowns));
        double step = c.increasePerCleanSecond() * Math.max(0, cleanNanos) / 1e9 / (1 << k);
        return Math.max(m, Math.min(ceiling, m + step));
    }

    /**
     * The climb's slowdowns after a fresh refusal that cuts the multiplier:
     * {@code min(MAX_CLIMB_SLOWDOWNS, slowdowns + 1)} when the climb by clean time raised the
     * multiplier since the previous cut ({@code climbedByTime}), else {@code slowdowns}. Why: a
     * refusal that ends a climb by time says the climb led back into the rate the provider refuses;
     * climbing back as fast again re-enters it every 45 s or so, and with long streams in flight each
     * re-entry costs a cascade of refusals (long-streaming member 11: six climbs to 1.0 in a run, each
     * followed by five or six 429s and cuts down to the floor). A refusal after a climb by successes
     * alone is not counted: successes are the provider's own pace, and counting them slowed the climb
     * that a cold provider's warm-up needs (long-streaming member 3).
     */
    static int slowdownsAfterCut(int slowdowns, boolean climbedByTime) {
        return climbedByTime ? Math.min(MAX_CLIMB_SLOWDOWNS, slowdowns + 1) : slowdowns;
    }

    /**
     * The climb's slowdowns once {@code cleanNanos} have passed since the last fresh refusal:
     * {@code 0} when {@code cleanNanos >= cleanRecoveryAfter * 2^MAX_CLIMB_SLOWDOWNS} (160 s by
     * default), else {@code slowdowns}. Why: refusals that old no longer say where the provider's
     * limit is (warm-ups double it about every minute, unannounced cuts last a minute or two), and a
     * deployment clean that long has earned the full-speed climb back.
     */
    static int slowdownsAfterClean(int slowdowns, long cleanNanos, MultiplierConfig c) {
        long forget = c.cleanRecoveryAfter().toNanos() << MAX_CLIMB_SLOWDOWNS;
        return cleanNanos >= forget ? 0 : slowdowns;
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
