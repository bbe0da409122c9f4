package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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

    private static final byte[] USAGE = "usage".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] USAGE_METADATA = "usageMetadata".getBytes(StandardCharsets.US_ASCII);

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
     * Usage from a response body that passes through untranslated, read without building a
     * tree: the top-level usage object ({@code usage}, or {@code usageMetadata} for Gemini) is
     * found by following the body's structure alone ({@link TopLevelField}), and only its counts
     * are parsed, token by token ({@link UsageCounts}). A body that pass cannot settle is read
     * by the parser from its start, skipping all but the usage. Same answers as
     * {@link #extract(WireFormat, byte[])} for every JSON body, for a fraction of the work.
     *
     * @throws UpstreamFormatException when the body is not JSON (by its structure; a body with
     *         JSON's structure but not its grammar outside the usage object is not refused)
     */
    public static Optional<ObservedUsage> scan(WireFormat format, byte[] body) {
        Objects.requireNonNull(format, "format");
        long slice = TopLevelField.find(body, format == WireFormat.GEMINI ? USAGE_METADATA : USAGE);
        if (slice == TopLevelField.ABSENT) {
            return Optional.empty();
        }
        if (slice != TopLevelField.UNDECIDED) {
            int start = TopLevelField.start(slice);
            if (start == TopLevelField.end(slice)) {
                throw new UpstreamFormatException("the body is not JSON");
            }
            if (body[start] != '{') {
                return Optional.empty(); // a usage that is not an object is no usage
            }
            try (JsonParser p = Json.MAPPER.createParser(body, start, TopLevelField.end(slice) - start)) {
                p.nextToken();
                return Optional.of(UsageCounts.read(p).as(format, true));
            } catch (IOException e) {
                throw new UpstreamFormatException("the body is not JSON");
            }
        }
        return parse(format, body);
    }

    /** {@link #scan} by a parser over the whole body, for what the structural pass leaves undecided. */
    private static Optional<ObservedUsage> parse(WireFormat format, byte[] body) {
        String field = usageField(format);
        try (JsonParser p = Json.MAPPER.createParser(body)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new UpstreamFormatException("the body is empty");
            }
            if (first != JsonToken.START_OBJECT) {
                // Gemini's JSON-array stream, or a bare value: rare enough for the tree.
                return extract(format, Json.MAPPER.readTree(p));
            }
            UsageCounts usage = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean wanted = field.equals(p.currentName());
                JsonToken value = p.nextToken();
                if (!wanted) {
                    p.skipChildren();
                } else if (value == JsonToken.START_OBJECT) {
                    usage = UsageCounts.read(p); // a repeated key: the last one counts, as in a tree
                } else {
                    usage = null; // a usage that is not an object is no usage
                    p.skipChildren();
                }
            }
            return Optional.ofNullable(usage).map(u -> u.as(format, true));
        } catch (IOException e) {
            throw new UpstreamFormatException("the body is not JSON");
        }
    }

    /** Usage from a parsed response body; empty when it carries none. */
    public static Optional<ObservedUsage> extract(WireFormat format, JsonNode body) {
        Objects.requireNonNull(format, "format");
        String field = usageField(format);
        if (format == WireFormat.GEMINI && body.isArray()) {
            Optional<ObservedUsage> last = Optional.empty();
            for (JsonNode element : body) {
                Optional<ObservedUsage> u = UsageCounts.of(element.path(field)).map(c -> c.as(format, true));
                if (u.isPresent()) {
                    last = u;
                }
            }
            return last;
        }
        return UsageCounts.of(body.path(field)).map(c -> c.as(format, true));
    }

    /** The top-level field an answer in {@code format} carries its usage in. */
    private static String usageField(WireFormat format) {
        return format == WireFormat.GEMINI ? "usageMetadata" : "usage";
    }

    /** An OpenAI {@code usage} object, chat or Responses style. */
    static Optional<ObservedUsage> openAi(JsonNode usage, boolean reported) {
        return UsageCounts.of(usage).map(c -> c.openAi(reported));
    }

    /** An Anthropic {@code usage} object (message, message_start or message_delta). */
    static Optional<ObservedUsage> anthropic(JsonNode usage, boolean reported) {
        return UsageCounts.of(usage).map(c -> c.anthropic(reported));
    }

    /** A Gemini {@code usageMetadata} object. */
    static Optional<ObservedUsage> gemini(JsonNode meta, boolean reported) {
        return UsageCounts.of(meta).map(c -> c.gemini(reported));
    }
}
