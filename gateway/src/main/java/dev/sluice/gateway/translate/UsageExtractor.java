package dev.sluice.gateway.translate;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads token usage from a whole (non-streaming) provider response body, native routes included.
 * The mapping to {@link ObservedUsage} is described there; results are always
 * {@code reportedByProvider}.
 *
 * <ul>
 *   <li>OpenAI chat, completions and embeddings: {@code usage.prompt_tokens},
 *       {@code completion_tokens}, {@code prompt_tokens_details.cached_tokens} and
 *       {@code cache_write_tokens}; Responses API: {@code usage.input_tokens}, {@code output_tokens},
 *       {@code input_tokens_details.cached_tokens}.</li>
 *   <li>Anthropic: {@code usage.input_tokens + cache_creation_input_tokens},
 *       {@code cache_read_input_tokens}, {@code output_tokens}.</li>
 *   <li>Gemini: {@code usageMetadata}; input is {@code promptTokenCount + toolUsePromptTokenCount}
 *       less {@code cachedContentTokenCount}, output {@code candidatesTokenCount + thoughtsTokenCount}.
 *       A JSON array (streamGenerateContent without {@code alt=sse}) yields its last usage.</li>
 * </ul>
 */
public final class UsageExtractor {

    private UsageExtractor() {
    }

    /**
     * Usage from a response body.
     *
     * @return empty when the body is not JSON or carries no usage (such as an error body)
     */
    public static Optional<ObservedUsage> extract(WireFormat format, byte[] body) {
        Objects.requireNonNull(format, "format");
        return Json.parse(body).flatMap(node -> extract(format, node));
    }

    /**
     * Usage from a response body that passes through untranslated, read without building its
     * tree: only the top-level usage object ({@code usage}, or {@code usageMetadata} for Gemini)
     * is parsed, everything else is skipped token by token. Same answers as
     * {@link #extract(WireFormat, byte[])}, for a fraction of the work on a long answer.
     *
     * @throws UpstreamFormatException when the body is not JSON
     */
    public static Optional<ObservedUsage> scan(WireFormat format, byte[] body) {
        Objects.requireNonNull(format, "format");
        String field = format == WireFormat.GEMINI ? "usageMetadata" : "usage";
        try (JsonParser p = Json.MAPPER.createParser(body)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new UpstreamFormatException("the body is empty");
            }
            if (first != JsonToken.START_OBJECT) {
                // Gemini's JSON-array stream, or a bare value: rare enough for the tree.
                return extract(format, Json.MAPPER.readTree(p));
            }
            JsonNode usage = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean wanted = field.equals(p.currentName());
                p.nextToken();
                if (wanted) {
                    usage = Json.MAPPER.readTree(p); // a repeated key: the last one counts, as in a tree
                } else {
                    p.skipChildren();
                }
            }
            if (usage == null) {
                return Optional.empty();
            }
            return switch (format) {
                case OPENAI -> openAi(usage, true);
                case ANTHROPIC -> anthropic(usage, true);
                case GEMINI -> gemini(usage, true);
            };
        } catch (IOException e) {
            throw new UpstreamFormatException("the body is not JSON");
        }
    }

    /** Usage from a parsed response body; empty when it carries none. */
    public static Optional<ObservedUsage> extract(WireFormat format, JsonNode body) {
        Objects.requireNonNull(format, "format");
        return switch (format) {
            case OPENAI -> openAi(body.path("usage"), true);
            case ANTHROPIC -> anthropic(body.path("usage"), true);
            case GEMINI -> {
                if (body.isArray()) {
                    Optional<ObservedUsage> last = Optional.empty();
                    for (JsonNode element : body) {
                        Optional<ObservedUsage> u = gemini(element.path("usageMetadata"), true);
                        if (u.isPresent()) {
                            last = u;
                        }
                    }
                    yield last;
                }
                yield gemini(body.path("usageMetadata"), true);
            }
        };
    }

    /** An OpenAI {@code usage} object, chat or Responses style. */
    static Optional<ObservedUsage> openAi(JsonNode usage, boolean reported) {
        if (!usage.isObject()) {
            return Optional.empty();
        }
        boolean responses = usage.has("input_tokens") && !usage.has("prompt_tokens");
        long prompt = Json.count(usage, responses ? "input_tokens" : "prompt_tokens");
        long output = Json.count(usage, responses ? "output_tokens" : "completion_tokens");
        JsonNode details = usage.path(responses ? "input_tokens_details" : "prompt_tokens_details");
        long cached = Math.min(prompt, Json.count(details, "cached_tokens"));
        long input = prompt - cached;
        long written = Math.min(input, Json.count(details, "cache_write_tokens"));
        return Optional.of(new ObservedUsage(input, output, cached, written, reported));
    }

    /** An Anthropic {@code usage} object (message, message_start or message_delta). */
    static Optional<ObservedUsage> anthropic(JsonNode usage, boolean reported) {
        if (!usage.isObject()) {
            return Optional.empty();
        }
        long written = Json.count(usage, "cache_creation_input_tokens");
        return Optional.of(new ObservedUsage(Json.count(usage, "input_tokens") + written,
                Json.count(usage, "output_tokens"), Json.count(usage, "cache_read_input_tokens"), written, reported));
    }

    /** A Gemini {@code usageMetadata} object. */
    static Optional<ObservedUsage> gemini(JsonNode meta, boolean reported) {
        if (!meta.isObject()) {
            return Optional.empty();
        }
        long prompt = Json.count(meta, "promptTokenCount") + Json.count(meta, "toolUsePromptTokenCount");
        long cached = Math.min(prompt, Json.count(meta, "cachedContentTokenCount"));
        long output = Json.count(meta, "candidatesTokenCount") + Json.count(meta, "thoughtsTokenCount");
        return Optional.of(new ObservedUsage(prompt - cached, output, cached, 0, reported));
    }
}
