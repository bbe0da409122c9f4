package dev.sluice.governor;

/**
 * What a request is expected to take, from preflight estimation.
 *
 * @param inputTokens estimated input tokens that count against input limits (cache reads the
 *     provider does not count are already left out)
 * @param outputTokens estimated output tokens
 * @param streaming whether the request holds a stream slot
 * @param serviceNanos how long the call itself is expected to take once sent (time to first token
 *     plus the output at the route's learned speed); 0 when nothing is known yet. Admission adds it
 *     to the predicted wait: a request that would still be generating when its deadline passes is
 *     refused at once instead.
 * @param costMicros the estimate's cost at the deployment's prices, in micro-dollars: reserved on
 *     every {@code daily_cost} and {@code monthly_cost} cap of the path with the tokens, all or nothing, so concurrent
 *     requests cannot together spend past a cap by more than their usage exceeds their estimates
 */
public record Demand(long inputTokens, long outputTokens, boolean streaming, long serviceNanos, long costMicros) {

    public Demand {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("tokens: " + inputTokens + "/" + outputTokens + " (expected: >= 0)");
        }
        if (serviceNanos < 0) {
            throw new IllegalArgumentException("serviceNanos: " + serviceNanos + " (expected: >= 0)");
        }
        if (costMicros < 0) {
            throw new IllegalArgumentException("costMicros: " + costMicros + " (expected: >= 0)");
        }
    }

    /** A demand without a price. */
    public Demand(long inputTokens, long outputTokens, boolean streaming, long serviceNanos) {
        this(inputTokens, outputTokens, streaming, serviceNanos, 0);
    }

    /** A demand whose call duration is not known. */
    public Demand(long inputTokens, long outputTokens, boolean streaming) {
        this(inputTokens, outputTokens, streaming, 0, 0);
    }

    /** The amount vector the store takes. */
    long[] amounts() {
        return Amounts.of(inputTokens, outputTokens, 1, streaming ? 1 : 0, costMicros);
    }
}
