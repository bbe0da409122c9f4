package dev.sluice.mock.limits;

/**
 * How the provider counts a prompt it is sent, given the tokens a reference tokenizer finds in it:
 * {@code ceil(tokens x factor) + perRequest} for a non-empty prompt, and the cache-read part scaled
 * by the same factor. Providers count with their own tokenizer and framing, so their figure is not
 * the gateway's estimate.
 *
 * @param factor the provider's tokens per reference token; 0.5 to 2
 * @param perRequest tokens of framing the provider adds to every prompt; 0 to 10,000
 */
public record TokenCounting(double factor, long perRequest) {

    /** The provider counts exactly the reference tokens. */
    public static final TokenCounting EXACT = new TokenCounting(1.0, 0);

    public TokenCounting {
        if (!Double.isFinite(factor) || factor < 0.5 || factor > 2) {
            throw new IllegalArgumentException("factor: " + factor + " (expected: between 0.5 and 2)");
        }
        if (perRequest < 0 || perRequest > 10_000) {
            throw new IllegalArgumentException("perRequest: " + perRequest + " (expected: 0 to 10000)");
        }
    }

    /** The provider's count of a whole prompt of {@code tokens} reference tokens. */
    public long prompt(long tokens) {
        if (tokens <= 0) {
            return 0;
        }
        return this == EXACT || (factor == 1.0 && perRequest == 0) ? tokens
                : (long) Math.ceil(tokens * factor - 1e-9) + perRequest;
    }

    /** The provider's count of the cache-read part of a prompt, at most its count of the whole prompt. */
    public long cacheRead(long promptTokens, long cacheReadTokens) {
        if (cacheReadTokens <= 0) {
            return 0;
        }
        return Math.min(prompt(promptTokens), Math.round(cacheReadTokens * factor));
    }
}
