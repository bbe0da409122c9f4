package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Client-side adaptive throttling in the style of the Google SRE book, for deployments that give
 * no usable limit figures: over a window, a request is refused locally with probability
 * {@code max(0, (requests - k * accepts) / (requests + 1))}, where requests counts attempts
 * (answered or refused here) and accepts counts answers that were not a 429 or an overload.
 *
 * @param enabled off by default: buckets and the multiplier already pace a deployment
 * @param k how many attempts per accepted request are tolerated before refusing; at least 1
 * @param window how far back attempts and accepts are counted
 * @param exempt classes never refused by it
 */
public record ClientThrottleConfig(boolean enabled, double k, Duration window, Set<TrafficClass> exempt) {

    /** K = 2: up to twice as many attempts as the provider accepts are let through, as the SRE book recommends. */
    public static final double DEFAULT_K = 2.0;

    /** Two minutes: the book's window; long enough to smooth bursts, short enough to follow recovery. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);

    public ClientThrottleConfig {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(exempt, "exempt");
        ConfigException.require(k >= 1 && Double.isFinite(k), "k", ">= 1", k);
        ConfigException.require(window.isPositive(), "window", "> 0", window);
        EnumSet<TrafficClass> e = EnumSet.noneOf(TrafficClass.class);
        e.addAll(exempt);
        exempt = java.util.Collections.unmodifiableSet(e);
    }

    /** Off; K = 2 over two minutes, critical exempt, once enabled. */
    public static ClientThrottleConfig defaults() {
        return new ClientThrottleConfig(false, DEFAULT_K, DEFAULT_WINDOW, EnumSet.of(TrafficClass.CRITICAL));
    }

    /** The same with throttling switched on. */
    public ClientThrottleConfig enable() {
        return new ClientThrottleConfig(true, k, window, exempt);
    }
}
