package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.Optional;

/**
 * Follows token usage through a provider's SSE stream, on native and translated routes alike.
 * Feed it the upstream bytes ({@link #feed(byte[])}) or already parsed events
 * ({@link #accept(SseEvent)}), not both; ask {@link #usage()} at any time, in particular when the
 * stream broke or the client went away.
 *
 * <ul>
 *   <li>OpenAI: the final chunk with a non-null {@code usage} (present only with
 *       {@code stream_options.include_usage}); for the Responses API, the {@code usage} of
 *       {@code response.completed}/{@code incomplete}/{@code failed}.</li>
 *   <li>Anthropic: input-side counts from {@code message_start}, then the cumulative counts of
 *       {@code message_delta} (which may repeat input fields).</li>
 *   <li>Gemini: every chunk's {@code usageMetadata}; the last one wins.</li>
 * </ul>
 *
 * <p>It also counts the text the stream delivered (content, tool-call arguments, thinking) so a
 * stream that broke before its final usage still settles with an output figure; see
 * {@link #estimatedOutputTokensFromText()}. Not thread-safe.
 */
public final class StreamUsageTracker {

    /** Characters per token assumed by {@link #estimatedOutputTokensFromText()}. */
    public static final int CHARS_PER_TOKEN = 4;

    private final WireFormat format;
    private SseParser parser;
    private ObservedUsage reported;
    private boolean finalSeen;
    private boolean geminiFinished;
    private long textChars;
    /** The provider said its answer is complete (or ended it with its own error event). */
    private boolean ended;
    /** An event arrived whose data is not JSON. */
    private boolean garbled;

    private StreamUsageTracker(WireFormat format) {
        this.format = Objects.requireNonNull(format, "format");
    }

    /** A tracker for a stream in {@code format}. */
    public static StreamUsageTracker of(WireFormat format) {
        return new StreamUsageTracker(format);
    }

    /**
     * Consumes raw upstream bytes, split anywhere.
     *
     * @throws UpstreamFormatException when an SSE line exceeds {@link SseParser#DEFAULT_MAX_LINE_BYTES}
     */
    public void feed(byte[] chunk) {
        if (parser == null) {
            parser = new SseParser();
        }
        parser.feed(chunk).forEach(this::accept);
    }

    /** The upstream ended: a last event fed as bytes but lacking its blank line still counts. */
    public void finish() {
        if (parser != null) {
            parser.finish().forEach(this::accept);
        }
    }

    /** Consumes one parsed event. Events whose data is not JSON are ignored. */
    public void accept(SseEvent event) {
        if (event.isDone()) {
            ended = true;
            return;
        }
        Optional<JsonNode> data = Json.parse(event.data());
        if (data.isPresent()) {
            observe(event.event(), data.get());
        } else {
            garbled = true;
        }
    }

    /**
     * Whether the stream, as far as it came, is a whole answer: the provider said it is complete
     * (Anthropic's {@code message_stop}, a Gemini finish reason, OpenAI's {@code [DONE]}, its usage
     * chunk or a Responses end event) or ended it with its own error event, and every event's
     * data was JSON. False for a stream that broke off, was cut short or carried garbage: its
     * client must be told with the route's own error event.
     */
    public boolean whole() {
        return (ended || finalSeen || geminiFinished) && !garbled;
    }

    /** Consumes one event whose data the caller already parsed (the stream converters do). */
    void observe(String eventName, JsonNode data) {
        switch (format) {
            case OPENAI -> observeOpenAi(data);
            case ANTHROPIC -> observeAnthropic(data);
            case GEMINI -> observeGemini(data);
        }
    }

    /** The usage the provider reported so far, if any (possibly only the input side). */
    public Optional<ObservedUsage> reported() {
        return Optional.ofNullable(reported);
    }

    /**
     * Whether the provider's final usage arrived: OpenAI's usage chunk (or Responses completion
     * event), Anthropic's {@code message_delta}, a Gemini chunk with usage at or after its finish
     * reason. False means the figures are partial and {@link #usage()} estimates the output.
     */
    public boolean finalUsageSeen() {
        return finalSeen;
    }

    /**
     * A rough output count from the streamed text alone: code points / {@value #CHARS_PER_TOKEN},
     * rounded up. Only for streams that ended before the provider reported usage.
     */
    public long estimatedOutputTokensFromText() {
        return (textChars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
    }

    /**
     * The usage to settle with. After the final usage: the provider's figures,
     * {@code reportedByProvider} true. Before it: the input side as far as reported (0 if nothing
     * was), output the larger of the reported count and {@link #estimatedOutputTokensFromText()},
     * {@code reportedByProvider} false.
     */
    public ObservedUsage usage() {
        if (finalSeen) {
            return reported;
        }
        long estimate = estimatedOutputTokensFromText();
        if (reported == null) {
            return new ObservedUsage(0, estimate, 0, 0, false);
        }
        return new ObservedUsage(reported.inputTokens(), Math.max(reported.outputTokens(), estimate),
                reported.cacheReadTokens(), reported.cacheWriteTokens(), false);
    }

    private void observeOpenAi(JsonNode data) {
        String type = Json.stringOr(data, "type");
        if (type.equals("error")) {
            ended = true;
        }
        if (type.startsWith("response.")) {
            switch (type) {
                case "response.output_text.delta", "response.function_call_arguments.delta",
                        "response.refusal.delta", "response.reasoning_text.delta",
                        "response.reasoning_summary_text.delta" -> countText(data.path("delta"));
                case "response.completed", "response.incomplete", "response.failed" ->
                        UsageExtractor.openAi(data.path("response").path("usage"), true).ifPresent(this::finalUsage);
                default -> {
                    // Other Responses events carry no text or usage.
                }
            }
            return;
        }
        for (JsonNode choice : data.path("choices")) {
            JsonNode delta = choice.path("delta");
            countText(delta.path("content"));
            countText(delta.path("refusal"));
            for (JsonNode call : delta.path("tool_calls")) {
                countText(call.path("function").path("arguments"));
            }
            countText(choice.path("text")); // legacy completions
        }
        UsageExtractor.openAi(data.path("usage"), true).ifPresent(this::finalUsage);
    }

    /** Consumes what {@link OpenAiChunkScan} read from an OpenAI chat or completions chunk. */
    void observeOpenAiChunk(long chunkTextChars, Optional<UsageCounts> usage) {
        textChars += chunkTextChars;
        usage.ifPresent(u -> finalUsage(u.openAi(true)));
    }

    private void observeAnthropic(JsonNode data) {
        switch (Json.stringOr(data, "type")) {
            case "message_start" -> UsageExtractor.anthropic(data.path("message").path("usage"), true)
                    .ifPresent(u -> reported = u);
            case "content_block_start" -> countText(data.path("content_block").path("text"));
            case "content_block_delta" -> {
                JsonNode delta = data.path("delta");
                countText(delta.path("text"));
                countText(delta.path("partial_json"));
                countText(delta.path("thinking"));
            }
            case "message_delta" -> {
                JsonNode usage = data.path("usage");
                if (usage.isObject()) {
                    finalUsage(mergeAnthropic(usage));
                }
            }
            case "message_stop", "error" -> ended = true;
            default -> {
                // ping, content_block_stop: nothing to count.
            }
        }
    }

    /** message_delta counts are cumulative; input fields overwrite only when present. */
    private ObservedUsage mergeAnthropic(JsonNode usage) {
        ObservedUsage before = reported == null ? new ObservedUsage(0, 0, 0, 0, true) : reported;
        long written = Json.hasCount(usage, "cache_creation_input_tokens")
                ? Json.count(usage, "cache_creation_input_tokens") : before.cacheWriteTokens();
        long uncached = Json.hasCount(usage, "input_tokens")
                ? Json.count(usage, "input_tokens") : before.inputTokens() - before.cacheWriteTokens();
        long read = Json.hasCount(usage, "cache_read_input_tokens")
                ? Json.count(usage, "cache_read_input_tokens") : before.cacheReadTokens();
        long output = Json.hasCount(usage, "output_tokens") ? Json.count(usage, "output_tokens") : before.outputTokens();
        return new ObservedUsage(uncached + written, output, read, written, true);
    }

    private void observeGemini(JsonNode data) {
        if (data.path("error").isObject()) {
            ended = true;
        }
        JsonNode candidate = data.path("candidates").path(0);
        for (JsonNode part : candidate.path("content").path("parts")) {
            countText(part.path("text"));
            if (part.has("functionCall")) {
                textChars += Json.write(part.path("functionCall").path("args")).length();
            }
        }
        if (candidate.path("finishReason").isTextual()) {
            geminiFinished = true;
        }
        UsageExtractor.gemini(data.path("usageMetadata"), true).ifPresent(u -> {
            reported = u;
            finalSeen = geminiFinished;
        });
    }

    private void finalUsage(ObservedUsage usage) {
        reported = usage;
        finalSeen = true;
    }

    private void countText(JsonNode text) {
        if (text.isTextual()) {
            String s = text.textValue();
            textChars += s.codePointCount(0, s.length());
        }
    }
}
