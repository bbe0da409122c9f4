package dev.sluice.ramp;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a deployment's dispatch capacity climbs back to its target after a cold start, a long
 * cooldown, an idle spell, or when the deployment is new.
 *
 * @param enabled false to run at the full target at once
 * @param stages fractions of the target, strictly increasing, in (0, 1], the last one 1
 * @param stageDuration how long a stage must be held at its fraction before it may advance
 * @param minSamples answers needed in a stage before it is judged
 * @param maxLimitedRatio a stage advances only while its 429 ratio stays below this; it steps
 *     back at or above it once it holds at least {@link #MIN_REFUSALS_TO_STEP_BACK} refusals
 * @param latencyBand a stage advances only while its p95 latency is at most this many times the
 *     p95 of the stage before it
 * @param maxGrowthPerMinute the most the dispatch fraction may rise in one minute (fraction of the
 *     target); stage changes upward are spread out to respect it
 * @param rearmAfterIdle after this long without any answer from the deployment the ramp starts
 *     over from the first stage; {@link Duration#ZERO} never re-arms
 */
public record RampConfig(boolean enabled, List<Double> stages, Duration stageDuration, int minSamples,
        double maxLimitedRatio, double latencyBand, double maxGrowthPerMinute, Duration rearmAfterIdle) {

    /**
     * 10%, 25%, 50%, 100%: each step at most multiplies traffic by 2.5, the kind of rise that
     * provider acceleration limits tolerate (Anthropic's rule of thumb: no more than about twice
     * the rate of the minute before), and four steps reach the target in under two minutes.
     */
    public static final List<Double> DEFAULT_STAGES = List.of(0.10, 0.25, 0.50, 1.00);

    /**
     * Five seconds held at a stage's fraction before the next: a 429 a step causes comes back
     * within the provider's short window (1 s at OpenAI, 1 or 10 s at Azure, a continuous bucket at
     * Anthropic) or the acceleration rule's recent window (seconds), so five seconds of clean
     * answers at the new rate are the evidence; ten (one whole Azure window) made the cold start
     * take two and a half minutes.
     */
    public static final Duration DEFAULT_STAGE_DURATION = Duration.ofSeconds(5);

    /**
     * Ten answers: enough that a stage is judged on traffic rather than on time alone, few enough
     * that the first stage (10% of the target) gathers them in seconds at an ordinary deployment
     * (a 600 RPM deployment sends one request a second at 10%).
     */
    public static final int DEFAULT_MIN_SAMPLES = 10;

    /**
     * Two refusals: a stage steps back only on a second one. A lone 429 is the probe of a
     * deployment running close to its limit, and stepping back on it made one refusal cost a
     * cold start half a minute.
     */
    public static final int MIN_REFUSALS_TO_STEP_BACK = 2;

    /** 1%: the 429 ratio a healthy deployment should stay under. */
    public static final double DEFAULT_MAX_LIMITED_RATIO = 0.01;

    /** p95 may grow by half from one stage to the next; more means the provider is queueing us. */
    public static final double DEFAULT_LATENCY_BAND = 1.5;

    /**
     * Eight tenths of the target per minute: from 50% to 100% takes 37.5 s, a steady climb rather
     * than a step. With the stages and holds above a ramp from idle reaches 100% about 83 s after
     * its first answers when each stage gets its ten answers in time, and it keeps an acceleration
     * rule of "at most twice the previous minute's rate plus two requests a second" at a 600 RPM
     * deployment (docs/ADAPTIVE.md has the timing); half the target per minute finished after
     * two and a half minutes.
     */
    public static final double DEFAULT_MAX_GROWTH_PER_MINUTE = 0.8;

    /** Five minutes idle: acceleration limits judge recent traffic, and after five quiet minutes there is none. */
    public static final Duration DEFAULT_REARM_AFTER_IDLE = Duration.ofMinutes(5);

    public RampConfig {
        Objects.requireNonNull(stages, "stages");
        Objects.requireNonNull(stageDuration, "stageDuration");
        Objects.requireNonNull(rearmAfterIdle, "rearmAfterIdle");
        stages = List.copyOf(stages);
        ConfigException.require(!stages.isEmpty(), "stages", "at least one stage", stages);
        double previous = 0;
        for (int i = 0; i < stages.size(); i++) {
            double s = stages.get(i);
            ConfigException.require(s > previous && s <= 1, "stages[" + i + "]",
                    "in (" + previous + ", 1] and above the stage before", s);
            previous = s;
        }
        ConfigException.require(previous == 1.0, "stages", "a last stage of 1.0 (the full target)", stages);
        ConfigException.require(stageDuration.isPositive(), "stage_duration", "> 0", stageDuration);
        ConfigException.require(minSamples >= 1, "min_samples", ">= 1", minSamples);
        ConfigException.require(maxLimitedRatio > 0 && maxLimitedRatio <= 1, "max_limited_ratio", "in (0, 1]",
                maxLimitedRatio);
        ConfigException.require(latencyBand >= 1 && Double.isFinite(latencyBand), "latency_band", ">= 1",
                latencyBand);
        ConfigException.require(maxGrowthPerMinute > 0 && Double.isFinite(maxGrowthPerMinute),
                "max_growth_per_minute", "> 0", maxGrowthPerMinute);
        ConfigException.require(!rearmAfterIdle.isNegative(), "rearm_after_idle", ">= 0 (0: never)", rearmAfterIdle);
    }

    /** The documented defaults. */
    public static RampConfig defaults() {
        return new RampConfig(true, DEFAULT_STAGES, DEFAULT_STAGE_DURATION, DEFAULT_MIN_SAMPLES,
                DEFAULT_MAX_LIMITED_RATIO, DEFAULT_LATENCY_BAND, DEFAULT_MAX_GROWTH_PER_MINUTE,
                DEFAULT_REARM_AFTER_IDLE);
    }

    /** No ramp: the full target from the start. */
    public static RampConfig disabled() {
        return defaults().withEnabled(false);
    }

    public RampConfig withEnabled(boolean on) {
        return new RampConfig(on, stages, stageDuration, minSamples, maxLimitedRatio, latencyBand,
                maxGrowthPerMinute, rearmAfterIdle);
    }

    public RampConfig withStages(List<Double> next) {
        return new RampConfig(enabled, next, stageDuration, minSamples, maxLimitedRatio, latencyBand,
                maxGrowthPerMinute, rearmAfterIdle);
    }

    public RampConfig withStageDuration(Duration next) {
        return new RampConfig(enabled, stages, next, minSamples, maxLimitedRatio, latencyBand, maxGrowthPerMinute,
                rearmAfterIdle);
    }

    public RampConfig withMinSamples(int next) {
        return new RampConfig(enabled, stages, stageDuration, next, maxLimitedRatio, latencyBand, maxGrowthPerMinute,
                rearmAfterIdle);
    }

    public RampConfig withMaxLimitedRatio(double next) {
        return new RampConfig(enabled, stages, stageDuration, minSamples, next, latencyBand, maxGrowthPerMinute,
                rearmAfterIdle);
    }

    public RampConfig withMaxGrowthPerMinute(double next) {
        return new RampConfig(enabled, stages, stageDuration, minSamples, maxLimitedRatio, latencyBand, next,
                rearmAfterIdle);
    }

    public RampConfig withRearmAfterIdle(Duration next) {
        return new RampConfig(enabled, stages, stageDuration, minSamples, maxLimitedRatio, latencyBand,
                maxGrowthPerMinute, next);
    }

    /** The fraction of stage {@code index}. */
    public double stage(int index) {
        return stages.get(index);
    }

    /** Index of the last stage (the full target). */
    public int lastStage() {
        return stages.size() - 1;
    }

    /** The highest stage whose fraction is at most {@code fraction}; the first stage if none is. */
    public int stageAtOrBelow(double fraction) {
        int best = 0;
        for (int i = 0; i < stages.size(); i++) {
            if (stages.get(i) <= fraction + 1e-12) {
                best = i;
            }
        }
        return best;
    }
}
