package dev.sluice.estimate;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The uncorrected input count of a prompt: text tokens plus the framing a chat format adds around
 * messages, tools and images.
 */
final class PromptCounter {

    /**
     * Roles whose counts are remembered: every message names one, and tokenizing the same word per
     * message is wasted work. Only these few, so a client's made-up roles cannot grow the cache.
     */
    private static final Set<String> CACHED_ROLES = Set.of("system", "developer", "user", "assistant", "tool",
            "function", "model");

    /** Role counts per tokenizer, filled on first use; never written after class initialisation. */
    private static final Map<Tokenizer, ConcurrentHashMap<String, Long>> ROLE_COUNTS = roleCountTables();

    private PromptCounter() {
    }

    private static Map<Tokenizer, ConcurrentHashMap<String, Long>> roleCountTables() {
        Map<Tokenizer, ConcurrentHashMap<String, Long>> tables = new EnumMap<>(Tokenizer.class);
        for (Tokenizer t : Tokenizer.values()) {
            tables.put(t, new ConcurrentHashMap<>());
        }
        return tables;
    }

    static long roleTokens(Tokenizer tokenizer, String role) {
        if (!CACHED_ROLES.contains(role)) {
            return TextCounter.count(tokenizer, role);
        }
        return ROLE_COUNTS.get(tokenizer).computeIfAbsent(role, r -> TextCounter.count(tokenizer, r));
    }

    static long baseTokens(Tokenizer tokenizer, PromptShape prompt, EstimatorConfig config) {
        long total = config.replyPrimingTokens();
        for (MessagePart message : prompt.messages()) {
            total += config.perMessageTokens()
                    + roleTokens(tokenizer, message.role())
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
