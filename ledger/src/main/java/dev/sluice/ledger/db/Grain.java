package dev.sluice.ledger.db;

import java.time.Duration;

/**
 * The periods every rollup is kept at, in UTC. Hours answer "the last 24 hours" to the hour; days
 * keep a year readable in a few hundred rows per key. Both are written with every batch.
 */
public enum Grain {
    HOUR("h", 3_600), DAY("d", 86_400);

    /** Hourly rollups are kept 35 days at most: five weeks of "since 7d" to the hour. */
    public static final Duration HOURLY_RETENTION = Duration.ofDays(35);

    private final String code;
    private final long seconds;

    Grain(String code, long seconds) {
        this.code = code;
        this.seconds = seconds;
    }

    /** The value of the {@code grain} column. */
    public String code() {
        return code;
    }

    public long seconds() {
        return seconds;
    }

    /** The start, in epoch seconds, of the period holding {@code epochSeconds}. */
    public long floor(long epochSeconds) {
        return Math.floorDiv(epochSeconds, seconds) * seconds;
    }

    /** The start of the first period at or after {@code epochSeconds}. */
    public long ceil(long epochSeconds) {
        return -Math.floorDiv(-epochSeconds, seconds) * seconds;
    }
}
