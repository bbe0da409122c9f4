package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A migration of one profile's traffic from its first deployment ({@code from}) to another
 * ({@code to}), by steps of a percentage, each held for an interval and judged against
 * thresholds before the next ({@code rollouts:} in the file, [CONFIG.md](CONFIG.md#rollouts)).
 *
 * @param id the rollout's name
 * @param profile the profile whose traffic moves
 * @param from the deployment traffic leaves: the profile's first deployment
 * @param to the deployment traffic moves to; one the profile's fallback policy allows
 * @param steps the target's share at each step, in percent, strictly increasing in (0, 100]
 * @param interval how long each step is held (and analysed) before the next
 * @param tenantsFirst tenants the steps are walked over first, before every tenant; empty for none
 * @param sticky what a request is hashed by, so that a conversation stays on one side
 * @param maxGrowthPerMinute per dimension (rpm, tpm, input_tpm, output_tpm): how much more the
 *     target may take in a minute than it took in the minute before
 * @param thresholds what an interval on the target must stay within
 * @param minRequests requests an interval needs on the target to be judged at all
 * @param rollbackAfter failed intervals after which traffic returns to the source
 * @param startsAtOnce whether the rollout starts when loaded ({@code start: immediately}) or on command
 * @param shadowSample the fraction of the profile's requests that run on the source of which a copy
 *     is sent to the target while the rollout is pending or running (the shadow phase), not
 *     answered from and charged to the target's buckets only; 0 for none
 */
public record RolloutConfig(String id, String profile, String from, String to, List<Double> steps, Duration interval,
        List<String> tenantsFirst, Sticky sticky, Map<Dimension, Long> maxGrowthPerMinute, Thresholds thresholds,
        long minRequests, int rollbackAfter, boolean startsAtOnce, double shadowSample) {

    /** A rollout without a shadow phase. */
    public RolloutConfig(String id, String profile, String from, String to, List<Double> steps, Duration interval,
            List<String> tenantsFirst, Sticky sticky, Map<Dimension, Long> maxGrowthPerMinute, Thresholds thresholds,
            long minRequests, int rollbackAfter, boolean startsAtOnce) {
        this(id, profile, from, to, steps, interval, tenantsFirst, sticky, maxGrowthPerMinute, thresholds, minRequests,
                rollbackAfter, startsAtOnce, 0);
    }

    /** The dimensions a growth ceiling may name: the per-minute rates. */
    public static final List<Dimension> GROWTH_DIMENSIONS = List.of(Dimension.REQUESTS, Dimension.TOTAL_TOKENS,
            Dimension.INPUT_TOKENS, Dimension.OUTPUT_TOKENS);

    public RolloutConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        steps = List.copyOf(steps);
        ConfigException.require(!steps.isEmpty(), "steps", "at least one step", "an empty list");
        double before = 0;
        for (int i = 0; i < steps.size(); i++) {
            double s = steps.get(i);
            ConfigException.require(s > before && s <= 100, "steps[" + i + "]",
                    "a percentage in (0, 100] above the step before (" + before + ")", s);
            before = s;
        }
        ConfigException.require(interval.isPositive(), "interval", "> 0", interval);
        tenantsFirst = List.copyOf(tenantsFirst);
        Objects.requireNonNull(sticky, "sticky");
        EnumMap<Dimension, Long> growth = new EnumMap<>(Dimension.class);
        growth.putAll(maxGrowthPerMinute);
        growth.forEach((d, v) -> {
            ConfigException.require(GROWTH_DIMENSIONS.contains(d), "max_growth_per_minute." + d.limiterName(),
                    "one of rpm, tpm, input_tpm, output_tpm", "a growth ceiling on " + d.limiterName());
            ConfigException.require(v >= 1, "max_growth_per_minute." + d.limiterName(), ">= 1", v);
        });
        maxGrowthPerMinute = Collections.unmodifiableMap(growth);
        Objects.requireNonNull(thresholds, "thresholds");
        ConfigException.require(minRequests >= 1, "min_requests", ">= 1", minRequests);
        ConfigException.require(rollbackAfter >= 1, "rollback_after", ">= 1", rollbackAfter);
        ConfigException.require(shadowSample >= 0 && shadowSample <= 1, "shadow.sample", "a fraction in [0, 1]",
                shadowSample);
    }

    /** What a request's side of the rollout is hashed by. */
    public enum Sticky {
        /** Every key of a tenant goes the same way. */
        TENANT,
        /** Each API key goes its own way. */
        KEY
    }

    /**
     * The bounds an interval on the target is judged against. Rates are fractions of the
     * target's attempts (or requests) in the interval.
     *
     * @param provider429Rate provider 429s over attempts on the target
     * @param fallbackRate requests that left the target for another deployment
     * @param errorRate attempts that failed (5xx, timeouts, resets)
     * @param estimateError mean |used - reserved| over reserved tokens of answered attempts
     * @param p95Latency the target's p95 latency of answered attempts, if bounded
     * @param p95TimeToFirstToken the target's p95 time to first token of streams, if bounded
     * @param p95QueueWait the p95 queue wait of requests that ran on the target, if bounded
     */
    public record Thresholds(double provider429Rate, double fallbackRate, double errorRate, double estimateError,
            Optional<Duration> p95Latency, Optional<Duration> p95TimeToFirstToken, Optional<Duration> p95QueueWait) {

        /** 1% provider 429s, 5% fallbacks, 2% errors, estimates off by half; no latency bound. */
        public static final Thresholds DEFAULTS = new Thresholds(0.01, 0.05, 0.02, 0.5, Optional.empty(),
                Optional.empty(), Optional.empty());

        public Thresholds {
            fraction("provider_429_rate", provider429Rate);
            fraction("fallback_rate", fallbackRate);
            fraction("error_rate", errorRate);
            ConfigException.require(estimateError > 0, "estimate_error", "> 0", estimateError);
            Objects.requireNonNull(p95Latency, "p95Latency");
            Objects.requireNonNull(p95TimeToFirstToken, "p95TimeToFirstToken");
            Objects.requireNonNull(p95QueueWait, "p95QueueWait");
        }

        private static void fraction(String path, double v) {
            ConfigException.require(v >= 0 && v <= 1, path, "a fraction in [0, 1]", v);
        }
    }
}
