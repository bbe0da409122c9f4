package dev.sluice.ledger.query;

/**
 * Usage of one group (a tenant, a key ...) over a period. Tokens are what the providers reported,
 * or Sluice's count where they did not (a stream the client left: what was produced until then).
 *
 * @param group the tenant, key id, profile, deployment or class; {@code ""} for requests that had
 *     none (an unknown key, a request refused before a profile was resolved)
 * @param requests requests that ended
 * @param answered answered with a 2xx status
 * @param refusedLocally refused by Sluice itself (rate limited, queue timeout, shed, paused, budget)
 * @param providerRejected admitted, then refused by the provider with a 429
 * @param clientGone the client went away first (status 499)
 * @param failed answered with a 5xx status
 * @param queued waited in a class queue before their first attempt
 * @param inputTokens input tokens not read from a cache
 * @param outputTokens output tokens
 * @param cacheReadTokens input tokens read from a cache
 * @param estimatedInputTokens what was reserved for input
 * @param estimatedOutputTokens what was reserved for output
 * @param borrowed admitted on capacity beyond the tenant's guaranteed share
 * @param latencyMillisSum summed latency; divided by {@code requests}, the mean
 * @param estimatedCostMicros what was reserved as cost at the price table, in micro-dollars
 * @param costMicros what the requests cost at the price table, in micro-dollars (0 without prices)
 */
public record UsageRow(String group, long requests, long answered, long refusedLocally, long providerRejected,
        long clientGone, long failed, long queued, long inputTokens, long outputTokens, long cacheReadTokens,
        long estimatedInputTokens, long estimatedOutputTokens, long borrowed, long latencyMillisSum,
        long estimatedCostMicros, long costMicros) {

    /** What the requests cost, in dollars. */
    public double costUsd() {
        return costMicros / 1e6;
    }

    /** Mean latency in milliseconds; 0 without requests. */
    public double meanLatencyMillis() {
        return requests == 0 ? 0 : (double) latencyMillisSum / requests;
    }
}
