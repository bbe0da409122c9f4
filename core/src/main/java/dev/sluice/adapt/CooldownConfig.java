package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * How long a deployment (or only the rate the provider named) is paused after a 429 or overload.
 *
 * @param floor the pause when the provider gave no retry delay
 * @param jitterRatio up to this fraction of the delay is added at random, in [0, 1]
 * @param max the longest pause from one answer; a longer hint is cut to this
 * @param exhaustedPause the pause after a refusal that waiting will not cure soon (spent quota,
 *     spend cap, zero quota) when the provider gave no delay
 * @param rampAfter a pause at least this long sends the ramp back down (recovery after a cooldown)
 * @param rateWindow the longest pause after a 429 that names a per-minute rate: the provider's
 *     short window for it, which the refusal is about; a longer hint is not obeyed
 * @param faultMax the longest pause after an overload (503, 529): a longer hint is cut to this,
 *     and the pause ends with one probe request before the deployment is open again
 */
public record CooldownConfig(Duration floor, double jitterRatio, Duration max, Duration exhaustedPause,
        Duration rampAfter, Duration rateWindow, Duration faultMax) {

    /**
     * One second: providers enforce per-minute limits over one-second slices (OpenAI quantises RPM
     * per second, Azure uses 1 s and 10 s windows), so a shorter pause lands in the same slice.
     */
    public static final Duration DEFAULT_FLOOR = Duration.ofSeconds(1);

    /** Up to 10% more: enough to spread replicas resuming together, not enough to waste capacity. */
    public static final double DEFAULT_JITTER_RATIO = 0.10;

    /**
     * Fifteen minutes: a longer hint (a daily quota) is honoured in slices, each ending with one
     * probe that costs no paid execution if it is refused again; a hostile or garbled hint cannot
     * freeze a deployment for a day.
     */
    public static final Duration DEFAULT_MAX = Duration.ofMinutes(15);

    /** Five minutes: a spent quota or spend cap needs a human; probing every five minutes notices the fix. */
    public static final Duration DEFAULT_EXHAUSTED_PAUSE = Duration.ofMinutes(5);

    /** Ten seconds: after that long without traffic the provider's acceleration window has forgotten us. */
    public static final Duration DEFAULT_RAMP_AFTER = Duration.ofSeconds(10);

    /**
     * Ten seconds: the longest short window a provider documents for a per-minute rate (OpenAI
     * quantises per second, Azure checks 1 s or 10 s windows, Anthropic refills continuously). A
     * 429 naming a rate is about that window; a Retry-After longer than it (a provider announcing a
     * full minute's refill) would stop every other caller for a minute, so it is cut to this, and
     * further to the refill time of the window the rate's limit declares
     * ({@link CooldownPolicy#namedRateCapNanos}: 1 s for the default window). In the 20-member
     * short sweep that second cap lifted the worst interactive success of gemini-no-headers from
     * 26.6% to 70.4% and of rollout-migration from 21.4% to 51.3%; noisy-neighbour lost a little
     * (worst 73.5% to 72.4%), its refused large requests coming back sooner.
     */
    public static final Duration DEFAULT_RATE_WINDOW = Duration.ofSeconds(10);

    /**
     * Sixty seconds, the longest hint Sluice gives its own callers: a provider fault (503 or 529,
     * shared capacity) is not this caller's quota, and one answer asking for an hour must not stop
     * every tenant for fifteen minutes.
     */
    public static final Duration DEFAULT_FAULT_MAX = Duration.ofSeconds(60);

    /** A configuration with the default rate window and fault cap. */
    public CooldownConfig(Duration floor, double jitterRatio, Duration max, Duration exhaustedPause,
            Duration rampAfter) {
        this(floor, jitterRatio, max, exhaustedPause, rampAfter, DEFAULT_RATE_WINDOW, DEFAULT_FAULT_MAX);
    }

    public CooldownConfig {
        Objects.requireNonNull(floor, "floor");
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(exhaustedPause, "exhaustedPause");
        Objects.requireNonNull(rampAfter, "rampAfter");
        ConfigException.require(!floor.isNegative(), "floor", ">= 0", floor);
        ConfigException.require(jitterRatio >= 0 && jitterRatio <= 1, "jitter_ratio", "in [0, 1]", jitterRatio);
        ConfigException.require(max.isPositive() && max.compareTo(floor) >= 0, "max", "> 0 and >= floor " + floor, max);
        ConfigException.require(exhaustedPause.isPositive(), "exhausted_pause", "> 0", exhaustedPause);
        ConfigException.require(rampAfter.isPositive(), "ramp_after", "> 0", rampAfter);
        Objects.requireNonNull(rateWindow, "rateWindow");
        Objects.requireNonNull(faultMax, "faultMax");
        ConfigException.require(rateWindow.isPositive(), "rate_window", "> 0", rateWindow);
        ConfigException.require(faultMax.isPositive() && faultMax.compareTo(max) <= 0, "fault_max",
                "> 0 and <= max " + max, faultMax);
    }

    /** The documented defaults. */
    public static CooldownConfig defaults() {
        return new CooldownConfig(DEFAULT_FLOOR, DEFAULT_JITTER_RATIO, DEFAULT_MAX, DEFAULT_EXHAUSTED_PAUSE,
                DEFAULT_RAMP_AFTER, DEFAULT_RATE_WINDOW, DEFAULT_FAULT_MAX);
    }

    public CooldownConfig withJitterRatio(double next) {
        return new CooldownConfig(floor, next, max, exhaustedPause, rampAfter, rateWindow, faultMax);
    }

    public CooldownConfig withRateWindow(Duration next) {
        return new CooldownConfig(floor, jitterRatio, max, exhaustedPause, rampAfter, next, faultMax);
    }
}
