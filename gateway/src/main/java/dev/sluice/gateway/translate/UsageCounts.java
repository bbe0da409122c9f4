package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * The counts of one provider usage object, read token by token: straight from a response's
 * parser, so that reading a passed-through answer's usage builds no tree, or from a tree
 * already parsed (through its own token stream). Either way the same reader and the same
 * mapping to {@link ObservedUsage} apply, so the two cannot disagree.
 *
 * <p>A tree's rules are kept: a count is a number's value, 0 when absent, not a number or
 * negative; of a repeated key the last counts; a {@code *_details} value that is not an object
 * counts as absent.
 */
final class UsageCounts {

    private long promptTokens;
    private long completionTokens;
    private long inputTokens;
    private long outputTokens;
    private boolean hasPromptTokens;
    private boolean hasInputTokens;
    /** {@code prompt_tokens_details}: cached, cache writes. */
    private final long[] promptDetails = new long[2];
    /** {@code input_tokens_details}: cached, cache writes. */
    private final long[] inputDetails = new long[2];
    private long cacheCreationInputTokens;
    private long cacheReadInputTokens;
    private long promptTokenCount;
    private long toolUsePromptTokenCount;
    private long cachedContentTokenCount;
    private long candidatesTokenCount;
    private long thoughtsTokenCount;

    private UsageCounts() {
    }

    /**
     * Reads the object whose {@code START_OBJECT} the parser is on, leaving it on the matching
     * {@code END_OBJECT}.
     */
    static UsageCounts read(JsonParser p) throws IOException {
        UsageCounts c = new UsageCounts();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "prompt_tokens" -> {
                    c.hasPromptTokens = true;
                    c.promptTokens = count(p, value);
                }
                case "input_tokens" -> {
                    c.hasInputTokens = true;
                    c.inputTokens = count(p, value);
                }
                case "completion_tokens" -> c.completionTokens = count(p, value);
                case "output_tokens" -> c.outputTokens = count(p, value);
                case "prompt_tokens_details" -> details(p, value, c.promptDetails);
                case "input_tokens_details" -> details(p, value, c.inputDetails);
                case "cache_creation_input_tokens" -> c.cacheCreationInputTokens = count(p, value);
                case "cache_read_input_tokens" -> c.cacheReadInputTokens = count(p, value);
                case "promptTokenCount" -> c.promptTokenCount = count(p, value);
                case "toolUsePromptTokenCount" -> c.toolUsePromptTokenCount = count(p, value);
                case "cachedContentTokenCount" -> c.cachedContentTokenCount = count(p, value);
                case "candidatesTokenCount" -> c.candidatesTokenCount = count(p, value);
                case "thoughtsTokenCount" -> c.thoughtsTokenCount = count(p, value);
                default -> p.skipChildren();
            }
        }
        return c;
    }

    /** The counts of a parsed usage object; empty when it is not an object. */
    static Optional<UsageCounts> of(JsonNode usage) {
        if (!usage.isObject()) {
            return Optional.empty();
        }
        try (JsonParser p = usage.traverse()) {
            p.nextToken();
            return Optional.of(read(p));
        } catch (IOException e) {
            throw new UncheckedIOException("a tree in memory cannot fail to read", e);
        }
    }

    private static void details(JsonParser p, JsonToken value, long[] into) throws IOException {
        into[0] = 0;
        into[1] = 0;
        if (value != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            switch (name) {
                case "cached_tokens" -> into[0] = count(p, v);
                case "cache_write_tokens" -> into[1] = count(p, v);
                default -> p.skipChildren();
            }
        }
    }

    /** A number as a tree's {@code asLong} reads it, never negative; anything else is 0. */
    private static long count(JsonParser p, JsonToken value) throws IOException {
        long v;
        if (value == JsonToken.VALUE_NUMBER_INT) {
            v = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue().longValue()
                    : p.getLongValue();
        } else if (value == JsonToken.VALUE_NUMBER_FLOAT) {
            v = (long) p.getDoubleValue();
        } else {
            p.skipChildren();
            v = 0;
        }
        return Math.max(0, v);
    }

    /** As the usage object of an answer in {@code format}. */
    ObservedUsage as(WireFormat format, boolean reported) {
        return switch (format) {
            case OPENAI -> openAi(reported);
            case ANTHROPIC -> anthropic(reported);
            case GEMINI -> gemini(reported);
        };
    }

    /** As an OpenAI {@code usage} object, chat or Responses style. */
    ObservedUsage openAi(boolean reported) {
        boolean responses = hasInputTokens && !hasPromptTokens;
        long prompt = responses ? inputTokens : promptTokens;
        long output = responses ? outputTokens : completionTokens;
        long[] details = responses ? inputDetails : promptDetails;
        long cached = Math.min(prompt, details[0]);
        long input = prompt - cached;
        long written = Math.min(input, details[1]);
        return new ObservedUsage(input, output, cached, written, reported);
    }

    /** As an Anthropic {@code usage} object (message, message_start or message_delta). */
    ObservedUsage anthropic(boolean reported) {
        long written = cacheCreationInputTokens;
        return new ObservedUsage(inputTokens + written, outputTokens, cacheReadInputTokens, written, reported);
    }

    /** As a Gemini {@code usageMetadata} object. */
    ObservedUsage gemini(boolean reported) {
        long prompt = promptTokenCount + toolUsePromptTokenCount;
        long cached = Math.min(prompt, cachedContentTokenCount);
        return new ObservedUsage(prompt - cached, candidatesTokenCount + thoughtsTokenCount, cached, 0, reported);
    }
}
