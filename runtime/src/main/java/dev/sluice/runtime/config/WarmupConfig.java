package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A scheduled job's warm-up ({@code warmups:} in the file, [CONFIG.md](CONFIG.md#warmups)): a
 * tenant's per-minute rates start low when its job starts and grow by at most a ceiling per
 * minute until the tenant's own limits, so that a job starting at 02:00 does not meet the
 * provider's acceleration limits. Growth pauses while the tenant's provider 429s breach the
 * threshold, as a rollout's step does.
 *
 * @param id its name
 * @param tenant the tenant whose job warms up; its limits bound the rates warmed up
 * @param startAt the time of day (in the configuration's daily reset zone) it starts each day;
 *     empty to start at the tenant's first request after a quiet spell ({@link #QUIET})
 * @param duration how long it lasts at most: then the tenant runs at its limits
 * @param initial per dimension, the rate per minute it starts at
 * @param maxGrowthPerMinute per dimension (rpm, tpm, input_tpm, output_tpm), how much the rate may
 *     grow each minute
 * @param provider429Rate the tenant's provider 429s over its attempts in a minute above which growth pauses
 * @param minRequests attempts a minute needs to be judged at all (fewer: growth goes on)
 */
public record WarmupConfig(String id, String tenant, Optional<LocalTime> startAt, Duration duration,
        Map<Dimension, Long> initial, Map<Dimension, Long> maxGrowthPerMinute, double provider429Rate, long minRequests) {

    /** A tenant quiet this long warms up again at its next request ({@code start: on_first_traffic}). */
    public static final Duration QUIET = Duration.ofMinutes(15);
    /** The longest warm-up: a day. */
    public static final Duration MAX_DURATION = Duration.ofHours(24);

    public WarmupConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(startAt, "startAt");
        ConfigException.require(duration.compareTo(Duration.ofMinutes(1)) >= 0 && duration.compareTo(MAX_DURATION) <= 0,
                "duration", "1m to 24h", duration);
        ConfigException.require(!maxGrowthPerMinute.isEmpty(), "max_growth_per_minute", "at least one of rpm, tpm, "
                + "input_tpm, output_tpm", "none");
        EnumMap<Dimension, Long> growth = new EnumMap<>(Dimension.class);
        growth.putAll(maxGrowthPerMinute);
        EnumMap<Dimension, Long> start = new EnumMap<>(Dimension.class);
        start.putAll(initial);
        growth.forEach((d, v) -> {
            ConfigException.require(RolloutConfig.GROWTH_DIMENSIONS.contains(d), "max_growth_per_minute." + d.limiterName(),
                    "one of rpm, tpm, input_tpm, output_tpm", "a growth ceiling on " + d.limiterName());
            ConfigException.require(v >= 1, "max_growth_per_minute." + d.limiterName(), ">= 1", v);
            // One minute's growth, unless the file says where it starts.
            start.putIfAbsent(d, v);
        });
        start.forEach((d, v) -> {
            ConfigException.require(growth.containsKey(d), "initial." + d.limiterName(),
                    "a dimension max_growth_per_minute names", d.limiterName());
            ConfigException.require(v >= 1, "initial." + d.limiterName(), ">= 1", v);
        });
        initial = Collections.unmodifiableMap(start);
        maxGrowthPerMinute = Collections.unmodifiableMap(growth);
        ConfigException.require(provider429Rate >= 0 && provider429Rate <= 1, "thresholds.provider_429_rate",
                "a fraction in [0, 1]", provider429Rate);
        ConfigException.require(minRequests >= 1, "min_requests", ">= 1", minRequests);
    }
}
