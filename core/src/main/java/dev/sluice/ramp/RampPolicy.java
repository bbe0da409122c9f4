package dev.sluice.ramp;

import java.util.OptionalLong;

/** The ramp's arithmetic and its judgement of a stage: pure functions of their inputs and {@code now}. */
final class RampPolicy {

    private static final double NANOS_PER_MINUTE = 60e9;

    private RampPolicy() {}

    /** What to do with the current stage. */
    enum Verdict {
        /** Keep going: not enough time or answers yet. */
        HOLD,
        /** The stage was clean: move up one. */
        ADVANCE,
        /** The stage saw too many 429s or latency left its band: move down one. */
        STEP_BACK
    }

    /**
     * The fraction in force at {@code now} while moving from {@code anchor} (set at
     * {@code anchorNanos}) towards {@code target}: a drop is immediate, a rise is spread out at
     * {@code maxGrowthPerMinute}.
     */
    static double fractionAt(double anchor, long anchorNanos, double target, long now, double maxGrowthPerMinute) {
        if (target <= anchor) {
            return target;
        }
        double grown = anchor + maxGrowthPerMinute * Math.max(0, now - anchorNanos) / NANOS_PER_MINUTE;
        return Math.min(target, grown);
    }

    /** When a rise from {@code anchor} reaches {@code target}. */
    static long reachedAt(double anchor, long anchorNanos, double target, double maxGrowthPerMinute) {
        if (target <= anchor) {
            return anchorNanos;
        }
        return anchorNanos + Math.round((target - anchor) / maxGrowthPerMinute * NANOS_PER_MINUTE);
    }

    /** Whether a stage's refusals send it back: its 429 ratio out of bounds, and more than a lone probe. */
    static boolean refusing(long samples, long limited, RampConfig config) {
        return limited >= RampConfig.MIN_REFUSALS_TO_STEP_BACK && (double) limited / samples >= config.maxLimitedRatio();
    }

    /**
     * Judges a stage. A stage that already has enough answers steps back at once when its 429
     * ratio is out of bounds with at least two refusals, or its p95 latency is (a lone refusal
     * counts as clean); it advances once it has also been held at its fraction for the stage
     * duration.
     *
     * @param samples answers in the stage
     * @param limited of which 429s
     * @param p95Nanos the stage's p95 latency of successful answers, if any
     * @param referenceP95Nanos the p95 of the stage before, if one was measured
     * @param heldNanos how long the stage has been at its fraction (0 while still climbing)
     */
    static Verdict judge(long samples, long limited, OptionalLong p95Nanos, OptionalLong referenceP95Nanos,
            long heldNanos, RampConfig config) {
        if (samples < config.minSamples()) {
            return Verdict.HOLD;
        }
        if (refusing(samples, limited, config)) {
            return Verdict.STEP_BACK;
        }
        if (p95Nanos.isPresent() && referenceP95Nanos.isPresent()
                && p95Nanos.getAsLong() > referenceP95Nanos.getAsLong() * config.latencyBand()) {
            return Verdict.STEP_BACK;
        }
        return heldNanos >= config.stageDuration().toNanos() ? Verdict.ADVANCE : Verdict.HOLD;
    }
}
