package dev.sluice.governor;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How long a class may wait for capacity and how many of its requests may wait at once.
 *
 * @param maxQueueWait a request waits only if it can be served within this (and its deadline)
 * @param maxQueueLength beyond this many waiting, new requests are rejected at once
 * @param deadline the deadline of the class's requests when neither the key nor the request sets a
 *     shorter one; empty for none
 */
public record ClassPolicy(Duration maxQueueWait, int maxQueueLength, Optional<Duration> deadline) {

    public ClassPolicy {
        Objects.requireNonNull(maxQueueWait, "maxQueueWait");
        Objects.requireNonNull(deadline, "deadline");
        ConfigException.require(!maxQueueWait.isNegative(), "max_queue_wait", ">= 0", maxQueueWait);
        ConfigException.require(maxQueueLength >= 0, "max_queue_length", ">= 0", maxQueueLength);
        deadline.ifPresent(d -> ConfigException.require(d.isPositive(), "deadline", "> 0", d));
    }

    /** A class without a deadline of its own. */
    public ClassPolicy(Duration maxQueueWait, int maxQueueLength) {
        this(maxQueueWait, maxQueueLength, Optional.empty());
    }

    /**
     * Defaults, by class. Interactive work is someone waiting at a screen: 300 ms of queueing is
     * the most that still feels instant. Batch work is judged on completion, not latency: 20
     * minutes. Critical gets 5 s because it must not be shed, yet must not hang either. Eval and
     * background sit between and after batch.
     */
    public static Map<TrafficClass, ClassPolicy> defaults() {
        Map<TrafficClass, ClassPolicy> m = new EnumMap<>(TrafficClass.class);
        m.put(TrafficClass.CRITICAL, new ClassPolicy(Duration.ofSeconds(5), 1_000));
        m.put(TrafficClass.INTERACTIVE, new ClassPolicy(Duration.ofMillis(300), 1_000));
        m.put(TrafficClass.BATCH, new ClassPolicy(Duration.ofMinutes(20), 10_000));
        m.put(TrafficClass.EVAL, new ClassPolicy(Duration.ofMinutes(10), 10_000));
        m.put(TrafficClass.BACKGROUND, new ClassPolicy(Duration.ofMinutes(30), 10_000));
        return m;
    }
}
