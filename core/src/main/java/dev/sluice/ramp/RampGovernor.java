package dev.sluice.ramp;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.HdrHistogram.Histogram;

/**
 * Staged ramp-up of one deployment's dispatch capacity. Providers refuse sharp rises in traffic
 * (acceleration limits) even below the published limits, so capacity climbs through stages
 * ({@link RampConfig#stages()}, by default 10%, 25%, 50%, 100% of the target) and moves up only
 * when the stage was clean: under 1% 429s (a lone 429 is a probe, not a verdict) and p95 latency
 * within a band of the stage before. A bad stage steps back one. Rises are spread out so the fraction never grows faster than
 * {@link RampConfig#maxGrowthPerMinute()}; drops are immediate.
 *
 * <p>It starts at the first stage (a cold start or a new deployment), starts over after
 * {@link RampConfig#rearmAfterIdle()} without answers, and can be sent back down after a long
 * cooldown with {@link #restartAtOrBelow}. Its {@link #fraction} is a ceiling on the deployment's
 * rate factor; the adaptive controller combines it with its multiplier.
 *
 * <p>Time comes in as arguments. Not thread-safe: its owner serialises calls.
 */
public final class RampGovernor {

    private static final long HIGHEST_MICROS = 3_600_000_000L;

    private final RampConfig config;
    private final Histogram latencyMicros = new Histogram(1, HIGHEST_MICROS, 2);
    private int stage;
    private double anchor;
    private long anchorNanos;
    private long samples;
    private long limited;
    private OptionalLong referenceP95 = OptionalLong.empty();
    private long lastAnswerNanos;

    /** A ramp at its first stage from {@code nowNanos} (or at the full target when disabled). */
    public RampGovernor(RampConfig config, long nowNanos) {
        this.config = Objects.requireNonNull(config, "config");
        this.stage = config.enabled() ? 0 : config.lastStage();
        this.anchor = config.stage(stage);
        this.anchorNanos = nowNanos;
        this.lastAnswerNanos = nowNanos;
    }

    public RampConfig config() {
        return config;
    }

    /** The current stage index. */
    public int stage() {
        return stage;
    }

    /** The fraction of the target capacity allowed at {@code now}, in (0, 1]. */
    public double fraction(long now) {
        return RampPolicy.fractionAt(anchor, anchorNanos, config.stage(stage), now, config.maxGrowthPerMinute());
    }

    /** Whether the ramp is over: last stage, fraction reached. */
    public boolean complete(long now) {
        return stage == config.lastStage() && fraction(now) >= 1.0;
    }

    /**
     * Counts one answer from the deployment towards the current stage.
     *
     * @param wasLimited the answer was a 429 or an overload
     * @param latencyNanos how long the answer took; recorded for successful answers only
     */
    public void record(boolean wasLimited, long latencyNanos, long now) {
        lastAnswerNanos = Math.max(lastAnswerNanos, now);
        if (complete(now)) {
            return;
        }
        samples++;
        if (wasLimited) {
            limited++;
        } else if (latencyNanos > 0) {
            latencyMicros.recordValue(Math.min(HIGHEST_MICROS, Math.max(1, latencyNanos / 1_000)));
        }
    }

    /**
     * Judges the current stage and moves if due.
     *
     * @param mayAdvance false holds the stage even when it was clean (the deployment is in caution)
     * @return the move, if one happened
     */
    public Optional<RampStep> evaluate(long now, boolean mayAdvance) {
        if (!config.enabled()) {
            return Optional.empty();
        }
        long idle = config.rearmAfterIdle().toNanos();
        if (idle > 0 && now - lastAnswerNanos >= idle && !(stage == 0 && samples == 0)) {
            lastAnswerNanos = now;
            return moveTo(0, "idle for " + seconds(idle) + ": ramp starts over", now);
        }
        if (complete(now)) {
            return Optional.empty();
        }
        long reached = RampPolicy.reachedAt(anchor, anchorNanos, config.stage(stage), config.maxGrowthPerMinute());
        long held = now >= reached ? now - reached : 0;
        OptionalLong p95 = latencyMicros.getTotalCount() == 0 ? OptionalLong.empty()
                : OptionalLong.of(latencyMicros.getValueAtPercentile(95.0) * 1_000);
        RampPolicy.Verdict v = RampPolicy.judge(samples, limited, p95, referenceP95, held, config);
        switch (v) {
            case STEP_BACK -> {
                String why = RampPolicy.refusing(samples, limited, config)
                        ? String.format(Locale.ROOT, "429 ratio %.3f >= %.3f over %d answers",
                                (double) limited / samples, config.maxLimitedRatio(), samples)
                        : String.format(Locale.ROOT, "p95 latency %d ms beyond %.2f x %d ms",
                                p95.getAsLong() / 1_000_000, config.latencyBand(),
                                referenceP95.getAsLong() / 1_000_000);
                return moveTo(Math.max(0, stage - 1), why, now);
            }
            case ADVANCE -> {
                if (!mayAdvance || stage == config.lastStage()) {
                    return Optional.empty();
                }
                referenceP95 = p95.isPresent() ? p95 : referenceP95;
                return moveTo(stage + 1, String.format(Locale.ROOT, "stage clean: %d answers, %d refused, held %s",
                        samples, limited, seconds(held)), now);
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    /**
     * Sends the ramp back to the highest stage at or below {@code fraction}, if that is lower than
     * where it is; used after a long cooldown. Never raises it.
     */
    public Optional<RampStep> restartAtOrBelow(double fraction, String reason, long now) {
        if (!config.enabled()) {
            return Optional.empty();
        }
        int to = config.stageAtOrBelow(fraction);
        if (to >= stage) {
            return Optional.empty();
        }
        return moveTo(to, reason, now);
    }

    /**
     * Takes {@code stage} (clamped to the last) at its full fraction at once: a replica joining a
     * fleet whose replicas are already there starts where they are instead of at its cold start.
     * Never lowers the ramp.
     */
    public Optional<RampStep> join(int stage, long now) {
        if (!config.enabled()) {
            return Optional.empty();
        }
        int to = Math.min(Math.max(0, stage), config.lastStage());
        if (to <= this.stage) {
            return Optional.empty();
        }
        Optional<RampStep> step = moveTo(to, "joined the fleet at stage " + to, now);
        anchor = config.stage(to);
        return step;
    }

    /**
     * Ends the ramp at once: the last stage at its full fraction. Used when a refusal meets the last
     * stage while it climbs: the last stage is the configured limit, so a refusal there says the
     * limit in force is lower than configured, which the multiplier learns, not that the
     * deployment was woken too fast. Stepping back instead kept a deployment whose real limit lay
     * below the configured one between the last two stages for good. No move when already complete.
     */
    public Optional<RampStep> finish(String reason, long now) {
        if (!config.enabled() || complete(now)) {
            return Optional.empty();
        }
        Optional<RampStep> step = moveTo(config.lastStage(), reason, now);
        anchor = config.stage(config.lastStage());
        return step;
    }

    private Optional<RampStep> moveTo(int to, String reason, long now) {
        int from = stage;
        double current = fraction(now);
        stage = to;
        anchor = Math.min(current, config.stage(to));
        anchorNanos = now;
        samples = 0;
        limited = 0;
        latencyMicros.reset();
        if (to == 0) {
            referenceP95 = OptionalLong.empty();
        }
        return Optional.of(new RampStep(from, to, config.stage(to), reason, now));
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.0f s", nanos / 1e9);
    }
}
