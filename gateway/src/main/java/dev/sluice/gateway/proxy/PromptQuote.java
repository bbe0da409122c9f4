package dev.sluice.gateway.proxy;

import dev.sluice.estimate.PromptShape;
import dev.sluice.estimate.TokenEstimate;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

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
     * The estimate of {@code prompt} counted by {@code count}: in place, before this returns, when
     * at most {@link #INLINE_MAX_CHARS} of its text needs tokenizing; otherwise on a worker, with the
     * result delivered on {@code context}. {@code charsToCount} (what a count would tokenize, given
     * the counts already remembered) is asked only of a prompt that is long in itself.
     */
    static Future<TokenEstimate> quote(Context context, PromptShape prompt, ToLongFunction<PromptShape> charsToCount,
            Supplier<TokenEstimate> count) {
        if (prompt.textChars() <= INLINE_MAX_CHARS || charsToCount.applyAsLong(prompt) <= INLINE_MAX_CHARS) {
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
