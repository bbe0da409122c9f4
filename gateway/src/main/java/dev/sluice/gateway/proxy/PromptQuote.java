package dev.sluice.gateway.proxy;

import dev.sluice.estimate.TokenEstimate;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.function.Supplier;

/**
 * Counts a prompt's tokens where it costs nobody else: in place when little of it needs counting,
 * on a worker thread when much does. Tokenizing is linear in the text (about 1.2 ms for 16,000
 * characters), and an event loop that counts serves none of its other connections meanwhile.
 */
final class PromptQuote {

    /**
     * Prompts with more characters to count than this are counted on a worker. Below it a count
     * takes tens of microseconds, less than the hand-over to a worker and back would cost.
     */
    static final int INLINE_MAX_CHARS = 8 * 1024;

    private PromptQuote() {}

    /**
     * The estimate counted by {@code count}, which tokenizes {@code charsToCount} characters (see
     * {@code TokenEstimator.charsToCount}): when they are many it runs on a worker and the result
     * is delivered on {@code context}; otherwise it runs before this returns.
     */
    static Future<TokenEstimate> quote(Context context, long charsToCount, Supplier<TokenEstimate> count) {
        if (charsToCount <= INLINE_MAX_CHARS) {
            try {
                return Future.succeededFuture(count.get());
            } catch (RuntimeException e) {
                return Future.failedFuture(e);
            }
        }
        // Unordered: one request's count need not wait for another's.
        return context.executeBlocking(count::get, false);
    }
}
