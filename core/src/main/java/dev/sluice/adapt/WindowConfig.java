package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * The sliding window over which 429 ratio, latency and queue pressure are observed.
 *
 * @param length how far back the window reaches
 * @param slots how many slices it is kept in (it slides one slice at a time)
 * @param minSamples below this many answers a ratio or percentile is treated as unknown
 */
public record WindowConfig(Duration length, int slots, int minSamples) {

    /**
     * Thirty seconds: three Azure request windows and half a token minute, long enough to hold a
     * few dozen answers at modest rates, short enough that modes react within one user's patience.
     */
    public static final Duration DEFAULT_LENGTH = Duration.ofSeconds(30);

    /** Ten slices of 3 s: the window forgets in steps of a tenth, never all at once. */
    public static final int DEFAULT_SLOTS = 10;

    /** Twenty answers: below that one refusal is already 5% and would decide a mode by chance. */
    public static final int DEFAULT_MIN_SAMPLES = 20;

    public WindowConfig {
        Objects.requireNonNull(length, "length");
        ConfigException.require(slots >= 1 && slots <= 1_000, "slots", "in [1, 1000]", slots);
        ConfigException.require(length.toNanos() >= slots, "length", ">= 1 ns per slot", length);
        ConfigException.require(minSamples >= 1, "min_samples", ">= 1", minSamples);
    }

    /** The documented defaults: 30 s in 10 slices, 20 answers. */
    public static WindowConfig defaults() {
        return new WindowConfig(DEFAULT_LENGTH, DEFAULT_SLOTS, DEFAULT_MIN_SAMPLES);
    }
}
