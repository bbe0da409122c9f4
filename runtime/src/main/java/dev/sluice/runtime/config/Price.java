package dev.sluice.runtime.config;

/**
 * What a model's tokens cost, in dollars per million tokens. A dollar per million tokens is a
 * micro-dollar per token, so a cost in micro-dollars (the unit of the money caps) is
 * the tokens times these numbers.
 *
 * @param inputPerMillion prompt tokens not read from the provider's cache
 * @param outputPerMillion generated tokens
 * @param cacheReadPerMillion prompt tokens read from the provider's cache
 */
public record Price(double inputPerMillion, double outputPerMillion, double cacheReadPerMillion) {

    /** The most a price may say: far above any provider's list price, so a larger one is a typo. */
    public static final double MAX_PER_MILLION = 10_000;

    /** No price: nothing a request does costs anything, so no money cap is touched. */
    public static final Price FREE = new Price(0, 0, 0);

    public Price {
        check("input", inputPerMillion);
        check("output", outputPerMillion);
        check("cache_read", cacheReadPerMillion);
    }

    private static void check(String name, double v) {
        if (!(v >= 0 && v <= MAX_PER_MILLION)) {
            throw new IllegalArgumentException(name + ": " + v + " (expected: 0 to " + (long) MAX_PER_MILLION + ")");
        }
    }

    /**
     * The cost of these tokens in micro-dollars, rounded up: a request is never charged less than
     * it cost, so many small ones cannot slip under a cap together.
     */
    public long costMicros(long inputTokens, long outputTokens, long cacheReadTokens) {
        double micros = inputTokens * inputPerMillion + outputTokens * outputPerMillion
                + cacheReadTokens * cacheReadPerMillion;
        return micros <= 0 ? 0 : (long) Math.ceil(micros - 1e-9);
    }
}
