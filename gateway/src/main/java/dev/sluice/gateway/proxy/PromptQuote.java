package dev.sluice.gateway.proxy;

import dev.sluice.estimate.MessagePart;
import dev.sluice.estimate.PromptShape;
import dev.sluice.estimate.TokenEstimate;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.function.Function;

/**
 * Counts a prompt's tokens where it costs nobody else: in place when the prompt is small, on a
 * worker thread when it is large. Tokenizing is linear in the text (about 1.2 ms for 16,000
 * characters), and an event loop that counts serves none of its other connections meanwhile.
 */
final class PromptQuote {

    /**
     * Prompts with more characters than this are counted on a worker. Below it a count takes tens of
     * microseconds, less than the hand-over to a worker and back would cost.
     */
    static final int INLINE_MAX_CHARS = 8 * 1024;

    private PromptQuote() {}

    /**
     * The estimate of {@code prompt}, counted by {@code count}; a large prompt is counted on a worker
     * and the result delivered on {@code context}. A small prompt is counted before this returns.
     */
    static Future<TokenEstimate> quote(Context context, PromptShape prompt, Function<PromptShape, TokenEstimate> count) {
        if (chars(prompt) <= INLINE_MAX_CHARS) {
            try {
                return Future.succeededFuture(count.apply(prompt));
            } catch (RuntimeException e) {
                return Future.failedFuture(e);
            }
        }
        // Unordered: one request's count need not wait for another's.
        return context.executeBlocking(() -> count.apply(prompt), false);
    }

    /** The characters the tokenizer reads: message texts, names and tool definitions. */
    static long chars(PromptShape prompt) {
        long total = 0;
        for (MessagePart m : prompt.messages()) {
            total += m.text().length() + m.role().length();
            if (m.name().isPresent()) {
                total += m.name().get().length();
            }
        }
        for (String tool : prompt.toolDefinitionsJson()) {
            total += tool.length();
        }
        return total;
    }
}
