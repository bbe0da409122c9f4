package dev.sluice.gateway.translate;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Optional;

/**
 * What a passing OpenAI chat or completions chunk means to the gateway, read from its bytes
 * ({@link OpenAiChunkBytes}) or, for what that leaves, with a streaming parser, never a tree: whether a choice finished, how much text it streamed (the estimate
 * for a stream that breaks before its usage), its usage object, and whether it is the usage-only
 * chunk. Every other field is skipped token by token; the chunk itself is forwarded unchanged.
 *
 * @param finishReason some choice carries a textual {@code finish_reason}
 * @param textChars code points of {@code delta.content}, {@code delta.refusal},
 *     {@code delta.tool_calls[].function.arguments} and legacy {@code text}
 * @param usage the counts of the top-level {@code usage} object; empty when there is none or it is
 *     not an object (OpenAI sends {@code null} in every chunk before the usage chunk)
 * @param noChoices {@code choices} is an empty array
 * @param responsesEvent a Responses API event ({@code type} starting {@code response.}), which
 *     the caller reads from its tree instead
 */
record OpenAiChunkScan(boolean finishReason, long textChars, Optional<UsageCounts> usage, boolean noChoices,
        boolean responsesEvent) {

    private static final OpenAiChunkScan NOTHING = new OpenAiChunkScan(false, 0, Optional.empty(), false, false);

    /** Whether this is the chunk OpenAI adds when asked for {@code stream_options.include_usage}. */
    boolean usageOnly() {
        return noChoices && usage.isPresent();
    }

    /**
     * Reads one event's data, {@code length} UTF-8 bytes of {@code data} from {@code offset}; empty
     * when it is not JSON. A JSON value that is not an object means nothing to the gateway, as in
     * a tree, where every field would be missing.
     */
    static Optional<OpenAiChunkScan> of(byte[] data, int offset, int length) {
        Optional<OpenAiChunkScan> fast = OpenAiChunkBytes.scan(data, offset, length);
        return fast.isPresent() ? fast : parsed(data, offset, length);
    }

    /** The same reading with a Jackson parser: for what {@link OpenAiChunkBytes} leaves to it, and the reference. */
    static Optional<OpenAiChunkScan> parsed(byte[] data, int offset, int length) {
        try (JsonParser p = Json.MAPPER.createParser(data, offset, length)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                return Optional.empty();
            }
            if (first != JsonToken.START_OBJECT) {
                p.skipChildren();
                return Optional.of(NOTHING);
            }
            Reader r = new Reader();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "choices" -> r.choices(p, value);
                    case "usage" -> {
                        // A repeated key: the last one counts, as in a tree; one that is not an object is no usage.
                        r.usage = null;
                        if (value == JsonToken.START_OBJECT) {
                            r.usage = UsageCounts.read(p);
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "type" -> {
                        r.responsesEvent = value == JsonToken.VALUE_STRING && p.getText().startsWith("response.");
                    }
                    default -> p.skipChildren();
                }
            }
            return Optional.of(new OpenAiChunkScan(r.finish, r.chars, Optional.ofNullable(r.usage), r.noChoices,
                    r.responsesEvent));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The fields gathered while reading one chunk. */
    private static final class Reader {
        boolean finish;
        long chars;
        UsageCounts usage;
        boolean noChoices;
        boolean responsesEvent;

        void choices(JsonParser p, JsonToken value) throws IOException {
            if (value != JsonToken.START_ARRAY) {
                p.skipChildren();
                noChoices = false;
                return;
            }
            int n = 0;
            for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                n++;
                if (t == JsonToken.START_OBJECT) {
                    choice(p);
                } else {
                    p.skipChildren();
                }
            }
            noChoices = n == 0;
        }

        private void choice(JsonParser p) throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "finish_reason" -> finish |= value == JsonToken.VALUE_STRING;
                    case "text" -> text(p, value);
                    case "delta" -> {
                        if (value == JsonToken.START_OBJECT) {
                            delta(p);
                        } else {
                            p.skipChildren();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        }

        private void delta(JsonParser p) throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "content", "refusal" -> text(p, value);
                    case "tool_calls" -> {
                        if (value == JsonToken.START_ARRAY) {
                            for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                                if (t == JsonToken.START_OBJECT) {
                                    toolCall(p);
                                } else {
                                    p.skipChildren();
                                }
                            }
                        } else {
                            p.skipChildren();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        }

        private void toolCall(JsonParser p) throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("function") && value == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String field = p.currentName();
                        JsonToken v = p.nextToken();
                        if (field.equals("arguments")) {
                            text(p, v);
                        } else {
                            p.skipChildren();
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        }

        private void text(JsonParser p, JsonToken value) throws IOException {
            if (value == JsonToken.VALUE_STRING) {
                chars += Character.codePointCount(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
            } else {
                p.skipChildren();
            }
        }
    }
}
