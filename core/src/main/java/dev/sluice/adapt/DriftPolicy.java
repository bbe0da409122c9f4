package dev.sluice.adapt;

/**
 * When the provider's limit figures say the real limit differs from the one in force. A figure is
 * compared as a ratio to the configured limit; figures beyond the tolerance on the same side, so
 * many in a row, move the limit in force to the least drastic of them. Never above the configured
 * limit. Pure: state in, state out.
 */
final class DriftPolicy {

    /** The least fraction of the configured limit ever adopted; the store needs a positive factor. */
    static final double MIN_FACTOR = 0.001;

    private DriftPolicy() {}

    /**
     * @param factor the fraction of the configured limit in force, in (0, 1]
     * @param streak consecutive figures on the same side so far
     * @param side -1 below, +1 above, 0 none
     * @param extreme the least drastic ratio of the streak
     */
    record State(double factor, int streak, int side, double extreme) {

        static State initial() {
            return new State(1.0, 0, 0, 0);
        }
    }

    /** The state after one more figure, {@code ratio} = reported limit per minute / configured limit. */
    static State next(State s, double ratio, CorrectionConfig c) {
        double r = Math.max(MIN_FACTOR, Math.min(1.0, ratio));
        double tol = c.driftTolerance();
        int side = r < s.factor() * (1 - tol) ? -1 : r > s.factor() * (1 + tol) ? 1 : 0;
        if (side == 0) {
            return new State(s.factor(), 0, 0, 0);
        }
        boolean continues = side == s.side();
        int streak = continues ? s.streak() + 1 : 1;
        double extreme = !continues ? r : side < 0 ? Math.max(s.extreme(), r) : Math.min(s.extreme(), r);
        if (streak >= c.driftConfirmations()) {
            return new State(extreme, 0, 0, 0);
        }
        return new State(s.factor(), streak, side, extreme);
    }
}
