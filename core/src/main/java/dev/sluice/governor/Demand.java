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
 */
public record Demand(long inputTokens, long outputTokens, boolean streaming, long serviceNanos) {

    public Demand {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("tokens: " + inputTokens + "/" + outputTokens + " (expected: >= 0)");
        }
        if (serviceNanos < 0) {
            throw new IllegalArgumentException("serviceNanos: " + serviceNanos + " (expected: >= 0)");
        }
    }

    /** A demand whose call duration is not known. */
    public Demand(long inputTokens, long outputTokens, boolean streaming) {
        this(inputTokens, outputTokens, streaming, 0);
    }

    /** The amount vector the store takes. */
    long[] amounts() {
        return Amounts.of(inputTokens, outputTokens, 1, streaming ? 1 : 0);
    }
}
