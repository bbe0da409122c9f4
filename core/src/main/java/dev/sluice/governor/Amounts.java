package dev.sluice.governor;

import dev.sluice.limits.Dimension;

/** Amount vectors, indexed by {@link Dimension#ordinal()}, as the store takes them. */
final class Amounts {

    private Amounts() {}

    /**
     * One request with these tokens, holding {@code requestSlots} concurrency slots and
     * {@code streamSlots} stream slots while it runs, costing {@code costMicros} micro-dollars.
     */
    static long[] of(long inputTokens, long outputTokens, int requestSlots, int streamSlots, long costMicros) {
        long[] a = new long[Dimension.COUNT];
        a[Dimension.REQUESTS.ordinal()] = 1;
        a[Dimension.INPUT_TOKENS.ordinal()] = inputTokens;
        a[Dimension.OUTPUT_TOKENS.ordinal()] = outputTokens;
        a[Dimension.TOTAL_TOKENS.ordinal()] = inputTokens + outputTokens;
        a[Dimension.CONCURRENT_REQUESTS.ordinal()] = requestSlots;
        a[Dimension.CONCURRENT_STREAMS.ordinal()] = streamSlots;
        a[Dimension.DAILY_REQUESTS.ordinal()] = 1;
        a[Dimension.DAILY_TOKENS.ordinal()] = inputTokens + outputTokens;
        a[Dimension.DAILY_COST.ordinal()] = costMicros;
        a[Dimension.MONTHLY_COST.ordinal()] = costMicros;
        return a;
    }
}
