package dev.sluice.estimate;

/**
 * The uncorrected input count of a prompt: text tokens plus the framing a chat format adds around
 * messages, tools and images.
 */
final class PromptCounter {

    private PromptCounter() {
    }

    static long baseTokens(Tokenizer tokenizer, PromptShape prompt, EstimatorConfig config) {
        long total = config.replyPrimingTokens();
        for (MessagePart message : prompt.messages()) {
            total += config.perMessageTokens()
                    + TextCounter.count(tokenizer, message.role())
                    + TextCounter.count(tokenizer, message.text());
            if (message.name().isPresent()) {
                total += config.perNameTokens() + TextCounter.count(tokenizer, message.name().get());
            }
        }
        for (String tool : prompt.toolDefinitionsJson()) {
            total += config.perToolTokens() + TextCounter.count(tokenizer, tool);
        }
        total += (long) prompt.imageCountLow() * config.lowDetailImageTokens();
        total += (long) prompt.imageCountHigh() * config.highDetailImageTokens();
        return total;
    }
}
