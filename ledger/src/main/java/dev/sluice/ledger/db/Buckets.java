package dev.sluice.ledger.db;

/**
 * The histogram buckets the rollups keep in place of single values, so that a quantile over any
 * period is a sum of rows: the actual/estimate ratio of tokens, and provider retry-after waits.
 */
public final class Buckets {

    /** Ratio buckets are spaced by 2^(1/8): a quantile is known to within 4.4 %. */
    public static final int RATIO_STEPS_PER_DOUBLING = 8;
    /** Ratios beyond 2^-10 .. 2^10 (a thousandfold miss) land in the outermost buckets. */
    public static final int RATIO_BUCKET_LIMIT = 10 * RATIO_STEPS_PER_DOUBLING;

    /**
     * Upper edges of the retry-after buckets in milliseconds; bucket {@code i} holds waits from edge
     * {@code i-1} (0 for the first) up to but excluding edge {@code i}; the last bucket holds the rest.
     */
    private static final long[] RETRY_AFTER_EDGES_MS = {100, 250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000,
            60_000, 120_000, 300_000};

    private Buckets() {}

    /** The bucket of a positive ratio: round(log2(ratio) * 8), clamped. */
    public static int ratioBucket(double ratio) {
        if (!(ratio > 0)) {
            return -RATIO_BUCKET_LIMIT;
        }
        long b = Math.round(Math.log(ratio) / Math.log(2) * RATIO_STEPS_PER_DOUBLING);
        return (int) Math.max(-RATIO_BUCKET_LIMIT, Math.min(RATIO_BUCKET_LIMIT, b));
    }

    /** The ratio a bucket stands for: 2^(bucket / 8). */
    public static double ratioOf(int bucket) {
        return Math.pow(2, (double) bucket / RATIO_STEPS_PER_DOUBLING);
    }

    /** The bucket of a retry-after wait. */
    public static int retryAfterBucket(long millis) {
        for (int i = 0; i < RETRY_AFTER_EDGES_MS.length; i++) {
            if (millis < RETRY_AFTER_EDGES_MS[i]) {
                return i;
            }
        }
        return RETRY_AFTER_EDGES_MS.length;
    }

    /** The exclusive upper edge of a retry-after bucket; {@link Long#MAX_VALUE} for the last. */
    public static long retryAfterUpperEdge(int bucket) {
        return bucket < RETRY_AFTER_EDGES_MS.length ? RETRY_AFTER_EDGES_MS[bucket] : Long.MAX_VALUE;
    }
}
