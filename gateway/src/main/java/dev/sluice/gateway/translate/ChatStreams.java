package dev.sluice.gateway.translate;

import java.util.Objects;

/** Creates the stream converter for a route; see {@link ChatStreamConverter}. */
public final class ChatStreams {

    private ChatStreams() {
    }

    /**
     * Anthropic Messages SSE to OpenAI chat chunks.
     *
     * @param meta         id, client-facing model and creation time of every chunk
     * @param includeUsage whether the client asked for {@code stream_options.include_usage}, which
     *                     adds {@code "usage": null} to each chunk and the usage chunk at the end
     */
    public static ChatStreamConverter fromAnthropic(CompletionMeta meta, boolean includeUsage) {
        return new AnthropicChatStream(Objects.requireNonNull(meta, "meta"), includeUsage);
    }

    /** Gemini {@code streamGenerateContent?alt=sse} to OpenAI chat chunks; parameters as for Anthropic. */
    public static ChatStreamConverter fromGemini(CompletionMeta meta, boolean includeUsage) {
        return new GeminiChatStream(Objects.requireNonNull(meta, "meta"), includeUsage);
    }

    /**
     * A translated chat stream as the Responses API's events; see {@link ResponsesStream}. The
     * chat converter must have been made with {@code includeUsage}, so the last event has usage.
     */
    public static ChatStreamConverter toResponses(ChatStreamConverter chat) {
        return new ResponsesStream(chat);
    }

    /**
     * OpenAI (or OpenAI-compatible) chat/completions SSE passed through, tracking usage.
     *
     * @param forwardUsageChunk false when the gateway added {@code include_usage} and the client
     *                          did not ask: the extra usage chunk is then withheld
     */
    public static ChatStreamConverter fromOpenAi(boolean forwardUsageChunk) {
        return new OpenAiChatStream(forwardUsageChunk);
    }
}
