package dev.sluice.mock.limits;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The state of every configured limit at one instant, for rate-limit headers.
 *
 * @param gauges one entry per configured limit: {@link LimitKind#REQUESTS} is the current
 *     sub-window; {@link LimitKind#ACCELERATION} never appears
 * @param requestsPerMinute requests over the trailing minute against {@code rpm}, when limited
 * @param inFlight requests admitted and not yet completed
 */
public record LimitSnapshot(Map<LimitKind, Gauge> gauges, Optional<Gauge> requestsPerMinute, int inFlight) {

    public LimitSnapshot {
        Objects.requireNonNull(requestsPerMinute, "requestsPerMinute");
        EnumMap<LimitKind, Gauge> copy = new EnumMap<>(LimitKind.class);
        copy.putAll(gauges);
        gauges = Collections.unmodifiableMap(copy);
    }

    /** The gauge of one limit, empty when that limit is not configured. */
    public Optional<Gauge> gauge(LimitKind kind) {
        return Optional.ofNullable(gauges.get(kind));
    }
}
