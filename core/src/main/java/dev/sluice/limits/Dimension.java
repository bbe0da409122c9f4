package dev.sluice.limits;

/**
 * A quantity a provider or an operator limits. Every bucket tracks any subset of these.
 *
 * <p>Rates are per minute and refill continuously; gauges count what is in flight and are given
 * back when a request ends; daily caps count up and reset at midnight in the configured zone,
 * monthly caps at the midnight that starts a calendar month there.
 *
 * <p>{@link #DAILY_COST} and {@link #MONTHLY_COST} are caps on money, counted in micro-dollars
 * ({@link #MICROS_PER_USD} to the dollar) so that they are whole numbers like every other amount;
 * configuration and the admin API write them in dollars.
 */
public enum Dimension {
    REQUESTS("rpm", Kind.RATE),
    INPUT_TOKENS("input_tpm", Kind.RATE),
    OUTPUT_TOKENS("output_tpm", Kind.RATE),
    TOTAL_TOKENS("tpm", Kind.RATE),
    CONCURRENT_REQUESTS("concurrency", Kind.GAUGE),
    CONCURRENT_STREAMS("streams", Kind.GAUGE),
    DAILY_REQUESTS("daily_requests", Kind.DAILY),
    DAILY_TOKENS("daily_tokens", Kind.DAILY),
    DAILY_COST("daily_cost", Kind.DAILY),
    MONTHLY_COST("monthly_cost", Kind.MONTHLY);

    /** Micro-dollars to the dollar: the unit of {@link #DAILY_COST} and {@link #MONTHLY_COST}. */
    public static final long MICROS_PER_USD = 1_000_000L;

    /** How a dimension's capacity comes back. */
    public enum Kind {
        /** Refills continuously at amount per minute. */
        RATE,
        /** Held while the request runs, released when it ends. */
        GAUGE,
        /** Counts up during a calendar day. */
        DAILY,
        /** Counts up during a calendar month. */
        MONTHLY;

        /** A cap counted over a calendar period (a day or a month): waiting seconds does not help. */
        public boolean calendar() {
            return this == DAILY || this == MONTHLY;
        }
    }

    private static final Dimension[] VALUES = values();

    /** Number of dimensions; amount vectors are indexed by {@link #ordinal()}. */
    public static final int COUNT = VALUES.length;

    private final String limiterName;
    private final Kind kind;

    Dimension(String limiterName, Kind kind) {
        this.limiterName = limiterName;
        this.kind = kind;
    }

    /** The name used in configuration files and in the {@code limiter} field of errors. */
    public String limiterName() {
        return limiterName;
    }

    public Kind kind() {
        return kind;
    }

    /** A cap on money, in micro-dollars, written in dollars. */
    public boolean money() {
        return this == DAILY_COST || this == MONTHLY_COST;
    }

    public static Dimension byOrdinal(int ordinal) {
        return VALUES[ordinal];
    }

    /** Looks a dimension up by its limiter name ({@code rpm}, {@code input_tpm}, ...). */
    public static java.util.Optional<Dimension> byLimiterName(String name) {
        for (Dimension d : VALUES) {
            if (d.limiterName.equals(name)) {
                return java.util.Optional.of(d);
            }
        }
        return java.util.Optional.empty();
    }
}
