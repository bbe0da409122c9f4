package dev.sluice.estimate;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.ToLongFunction;

/**
 * The parts of a request that cost tokens, already parsed from whichever provider format it
 * arrived in.
 *
 * @param messages            the conversation, system prompt included, in order
 * @param toolDefinitionsJson one serialised JSON schema text per tool or function definition
 * @param imageCountLow       images sent with low detail
 * @param imageCountHigh      images sent with high or automatic detail (and images whose
 *                            provider has no detail setting)
 * @param maxOutputTokens     the request's {@code max_tokens} / {@code max_completion_tokens} /
 *                            {@code maxOutputTokens}, when it gives one
 */
public record PromptShape(List<MessagePart> messages, List<String> toolDefinitionsJson,
        int imageCountLow, int imageCountHigh, OptionalInt maxOutputTokens) {

    /** Copies the lists and validates the counts. */
    public PromptShape {
        messages = List.copyOf(messages);
        toolDefinitionsJson = List.copyOf(toolDefinitionsJson);
        if (imageCountLow < 0) {
            throw new IllegalArgumentException("imageCountLow: " + imageCountLow + " (expected: >= 0)");
        }
        if (imageCountHigh < 0) {
            throw new IllegalArgumentException("imageCountHigh: " + imageCountHigh + " (expected: >= 0)");
        }
        Objects.requireNonNull(maxOutputTokens, "maxOutputTokens");
        if (maxOutputTokens.isPresent() && maxOutputTokens.getAsInt() < 0) {
            throw new IllegalArgumentException(
                    "maxOutputTokens: " + maxOutputTokens.getAsInt() + " (expected: >= 0)");
        }
    }

    /** A prompt of plain messages: no tools, no images. */
    public static PromptShape ofMessages(List<MessagePart> messages, OptionalInt maxOutputTokens) {
        return new PromptShape(messages, List.of(), 0, 0, maxOutputTokens);
    }

    /** The characters of every text a tokenizer reads: roles, names, message texts and tool definitions. */
    public long textChars() {
        return sumOverTexts(String::length);
    }

    /** {@code perText} summed over every text a tokenizer reads. */
    long sumOverTexts(ToLongFunction<String> perText) {
        long total = 0;
        for (MessagePart m : messages) {
            total += perText.applyAsLong(m.role()) + perText.applyAsLong(m.text());
            if (m.name().isPresent()) {
                total += perText.applyAsLong(m.name().get());
            }
        }
        for (String tool : toolDefinitionsJson) {
            total += perText.applyAsLong(tool);
        }
        return total;
    }
}
