package dev.sluice.governor;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How long a class may wait for capacity, how many of its requests may wait at once, its default
 * deadline, and how much of every shared bucket is held back for it.
 *
 * @param maxQueueWait a request waits only if it can be served within this (and its deadline)
 * @param maxQueueLength beyond this many waiting, new requests are rejected at once
 * @param deadline the deadline of the class's requests when neither the key nor the request sets a
 *     shorter one; empty for none
 * @param reserve the fraction of each shared bucket's capacity (deployment, model profile,
 *     organisation) that classes served after this one may not take: headroom for this class and
 *     the ones before it, so that a request that may only wait briefly finds capacity at once
 *     when long-budget work has drained the bucket. Unused, it costs the lower classes only
 *     burst, not rate: their waiting work keeps the bucket at the reserve and takes every refill
 *     above it. In [0, 1); the reserves of all classes add up to less than 1.
 */
public record ClassPolicy(Duration maxQueueWait, int maxQueueLength, Optional<Duration> deadline, double reserve) {

    /**
     * Interactive work waits at most 300 ms, less than a busy bucket takes to refill a request of
     * any size, so a tenth of every shared bucket is held back for it (and for critical work, which
     * may use it too). A tenth: enough for a few chats at once on a token bucket of a minute's
     * worth, little enough that the burst left to batch work stays nine tenths of the bucket.
     */
    public static final double DEFAULT_INTERACTIVE_RESERVE = 0.10;

    public ClassPolicy {
        Objects.requireNonNull(maxQueueWait, "maxQueueWait");
        Objects.requireNonNull(deadline, "deadline");
        ConfigException.require(!maxQueueWait.isNegative(), "max_queue_wait", ">= 0", maxQueueWait);
        ConfigException.require(maxQueueLength >= 0, "max_queue_length", ">= 0", maxQueueLength);
        deadline.ifPresent(d -> ConfigException.require(d.isPositive(), "deadline", "> 0", d));
        ConfigException.require(reserve >= 0 && reserve < 1, "reserve", "in [0, 1)", reserve);
    }

    /** A class with a deadline of its own and no reserve. */
    public ClassPolicy(Duration maxQueueWait, int maxQueueLength, Optional<Duration> deadline) {
        this(maxQueueWait, maxQueueLength, deadline, 0);
    }

    /** A class without a deadline of its own that holds {@code reserve} back. */
    public ClassPolicy(Duration maxQueueWait, int maxQueueLength, double reserve) {
        this(maxQueueWait, maxQueueLength, Optional.empty(), reserve);
    }

    /** A class without a deadline of its own or a reserve. */
    public ClassPolicy(Duration maxQueueWait, int maxQueueLength) {
        this(maxQueueWait, maxQueueLength, Optional.empty(), 0);
    }

    /** This policy with {@code reserve} held back for its class. */
    public ClassPolicy withReserve(double reserve) {
        return new ClassPolicy(maxQueueWait, maxQueueLength, deadline, reserve);
    }

    /**
     * Defaults, by class. Interactive work is someone waiting at a screen: 300 ms of queueing is
     * the most that still feels instant, and {@link #DEFAULT_INTERACTIVE_RESERVE} of shared
     * capacity is held back for it. Batch work is judged on completion, not latency: 20 minutes.
     * Critical gets 5 s because it must not be shed, yet must not hang either; it reserves nothing
     * of its own, since it is served first at every refill and may use the interactive reserve.
     * Eval and background sit between and after batch.
     */
    public static Map<TrafficClass, ClassPolicy> defaults() {
        Map<TrafficClass, ClassPolicy> m = new EnumMap<>(TrafficClass.class);
        m.put(TrafficClass.CRITICAL, new ClassPolicy(Duration.ofSeconds(5), 1_000));
        m.put(TrafficClass.INTERACTIVE, new ClassPolicy(Duration.ofMillis(300), 1_000, DEFAULT_INTERACTIVE_RESERVE));
        m.put(TrafficClass.BATCH, new ClassPolicy(Duration.ofMinutes(20), 10_000));
        m.put(TrafficClass.EVAL, new ClassPolicy(Duration.ofMinutes(10), 10_000));
        m.put(TrafficClass.BACKGROUND, new ClassPolicy(Duration.ofMinutes(30), 10_000));
        return m;
    }
}
