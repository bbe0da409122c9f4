package dev.sluice.governor;

import java.util.Locale;
import java.util.Optional;

/**
 * Kinds of work with their own queue and wait budget. Declaration order is precedence: when
 * capacity frees up, waiting critical work goes first and background work last.
 */
public enum TrafficClass {
    CRITICAL,
    INTERACTIVE,
    BATCH,
    EVAL,
    BACKGROUND;

    /** Computed once: the events and headers of every request ask for it (it was 1% of the gateway's allocation). */
    private final String wireName = name().toLowerCase(Locale.ROOT);

    private static final TrafficClass[] VALUES = values();

    /** Classes in the order they are served. */
    public static TrafficClass[] inOrder() {
        return VALUES.clone();
    }

    /** The name on the wire and in configuration: {@code interactive}. */
    public String wireName() {
        return wireName;
    }

    public static Optional<TrafficClass> byWireName(String name) {
        for (TrafficClass c : VALUES) {
            if (c.wireName().equalsIgnoreCase(name.trim())) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** Whether this class is served before {@code other}. */
    public boolean outranks(TrafficClass other) {
        return ordinal() < other.ordinal();
    }
}
