package dev.sluice.ledger.query;

import java.util.List;
import java.util.Objects;

/**
 * The weekly review the product brief asks for, over any period: how far estimates were from what
 * providers reported, capacity held by estimates and not used, input the providers did not count,
 * the waits providers and Sluice asked for, who used most, and who borrowed. Every part is read from
 * rollups.
 *
 * @param covered the period the rollups read cover
 * @param estimation per route (profile and deployment) and dimension
 * @param stranded per deployment and dimension
 * @param cacheHeadroom per deployment that read from a cache
 * @param retryAfter per source, provider and limiter
 * @param topConsumers per dimension, the largest first
 * @param borrowing per tenant, the largest borrower first
 */
public record Review(Window covered, List<EstimationError> estimation, List<StrandedQuota> stranded,
        List<CacheHeadroom> cacheHeadroom, List<RetryAfters> retryAfter, List<TopConsumer> topConsumers,
        List<Borrowing> borrowing) {

    public Review {
        Objects.requireNonNull(covered, "covered");
        estimation = List.copyOf(estimation);
        stranded = List.copyOf(stranded);
        cacheHeadroom = List.copyOf(cacheHeadroom);
        retryAfter = List.copyOf(retryAfter);
        topConsumers = List.copyOf(topConsumers);
        borrowing = List.copyOf(borrowing);
    }

    /**
     * The actual/estimate ratio of one route's tokens, over answered attempts whose usage the
     * provider reported. Input compares whole prompts (cache reads included on both sides), so it
     * measures the tokenizer and overheads; output compares the reserved output with the answer.
     *
     * @param profile the model profile
     * @param deployment where the attempts ran
     * @param dimension {@code input} or {@code output}
     * @param samples attempts compared
     * @param meanRatio the mean of actual/estimate: 1 is unbiased, 1.2 means 20 % more than estimated
     * @param p50Ratio the median ratio, to within 4.4 % (the rollup's bucket)
     * @param p95Ratio the 95th percentile ratio, to within 4.4 %
     * @param tokenRatio all actual tokens over all estimated ones
     */
    public record EstimationError(String profile, String deployment, String dimension, long samples,
            double meanRatio, double p50Ratio, double p95Ratio, double tokenRatio) {

        /** {@code meanRatio - 1}: positive when estimates were short. */
        public double bias() {
            return meanRatio - 1;
        }
    }

    /**
     * Capacity held by estimates beyond what attempts used, over settled attempts, as the
     * deployment's limit counts it (cache reads only where the provider counts them).
     *
     * @param deployment the deployment
     * @param dimension {@code input_tpm} or {@code output_tpm}
     * @param settledAttempts attempts whose reservation was settled
     * @param reserved tokens reserved
     * @param used tokens the provider counted
     * @param stranded the sum over attempts of what was reserved beyond use
     * @param overage the sum over attempts of what was used beyond the reservation (carried as debt)
     */
    public record StrandedQuota(String deployment, String dimension, long settledAttempts, long reserved, long used,
            long stranded, long overage) {

        /** Stranded over reserved; 0 when nothing was. */
        public double strandedShare() {
            return reserved == 0 ? 0 : (double) stranded / reserved;
        }
    }

    /**
     * Input read from a provider's cache, and the part its input limit did not count: room the
     * deployment had beyond its configured input rate.
     *
     * @param deployment the deployment
     * @param promptTokens whole prompts: input plus cache reads
     * @param cacheReadTokens read from the cache
     * @param uncountedTokens cache reads on routes whose provider does not count them
     */
    public record CacheHeadroom(String deployment, long promptTokens, long cacheReadTokens, long uncountedTokens) {

        /** Uncounted over whole prompts; 0 without prompts. */
        public double uncountedShare() {
            return promptTokens == 0 ? 0 : (double) uncountedTokens / promptTokens;
        }
    }

    /**
     * Retry-after waits asked for. Quantiles are the upper edge of the rollup's bucket they fall
     * in, never above the largest wait seen.
     *
     * @param source {@code provider} (a provider's Retry-After on a refusal) or {@code gateway}
     *     (Sluice's own hint on a local refusal)
     * @param provider the provider kind; {@code ""} for a gateway refusal before a route was known
     * @param limiter the limit named: the provider's ({@code unknown} when it named none) or Sluice's limiter
     * @param samples waits seen
     * @param meanMillis their mean
     * @param p50Millis median, at most
     * @param p95Millis 95th percentile, at most
     * @param maxMillis the largest
     */
    public record RetryAfters(String source, String provider, String limiter, long samples, double meanMillis,
            long p50Millis, long p95Millis, long maxMillis) {}

    /**
     * One of the largest consumers of a dimension.
     *
     * @param dimension {@code requests}, {@code input_tokens}, {@code output_tokens} or {@code cache_read_tokens}
     * @param rank 1 for the largest
     * @param tenant the key's tenant
     * @param apiKey the key id
     * @param amount its use of the dimension
     * @param share of everyone's use
     */
    public record TopConsumer(String dimension, int rank, String tenant, String apiKey, long amount, double share) {}

    /**
     * A tenant's use of capacity lent by others: requests admitted beyond its guaranteed share of a
     * deployment, and their tokens.
     *
     * @param tenant the tenant
     * @param requests all its requests
     * @param borrowedRequests those admitted on borrowed capacity
     * @param inputTokens all its input tokens
     * @param borrowedInputTokens those of borrowed requests
     * @param outputTokens all its output tokens
     * @param borrowedOutputTokens those of borrowed requests
     */
    public record Borrowing(String tenant, long requests, long borrowedRequests, long inputTokens,
            long borrowedInputTokens, long outputTokens, long borrowedOutputTokens) {

        /** Borrowed requests over all; 0 without requests. */
        public double borrowedShare() {
            return requests == 0 ? 0 : (double) borrowedRequests / requests;
        }
    }
}
