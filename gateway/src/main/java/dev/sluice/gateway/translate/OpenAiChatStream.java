package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * OpenAI chat (or legacy completions) SSE passed through event by event, data untouched, except
 * the extra usage chunk, which is dropped when the gateway asked for it on the client's behalf.
 */
final class OpenAiChatStream extends BaseChatStream {

    private final boolean forwardUsageChunk;
    private boolean finishSeen;

    OpenAiChatStream(boolean forwardUsageChunk) {
        super(WireFormat.OPENAI);
        this.forwardUsageChunk = forwardUsageChunk;
    }

    /**
     * Chunks pass through unchanged, so they are read with a streaming parser for what matters
     * (finish, text, usage) rather than built into a tree; a Responses API event, which an
     * OpenAI-compatible server might mix in, still takes the tree.
     */
    @Override
    void onData(SseEvent event, List<String> out) {
        Optional<OpenAiChunkScan> scanned = OpenAiChunkScan.of(event.data());
        if (scanned.isEmpty()) {
            onRawEvent(event, out);
            return;
        }
        OpenAiChunkScan chunk = scanned.get();
        if (chunk.responsesEvent()) {
            super.onData(event, out);
            return;
        }
        usage().observeOpenAiChunk(chunk.textChars(), chunk.usage());
        finishSeen |= chunk.finishReason();
        if (forwardUsageChunk || !chunk.usageOnly()) {
            out.add(event.toWire());
        }
    }

    @Override
    void onEvent(SseEvent event, JsonNode data, List<String> out) {
        for (JsonNode choice : data.path("choices")) {
            if (choice.path("finish_reason").isTextual()) {
                finishSeen = true;
            }
        }
        if (forwardUsageChunk || !OpenAiChunks.isUsageOnlyChunk(data)) {
            out.add(event.toWire());
        }
    }

    @Override
    void onRawEvent(SseEvent event, List<String> out) {
        if (event.isDone()) {
            complete(out);
        } else {
            super.onRawEvent(event, out);
        }
    }

    @Override
    void onEnd(List<String> out) {
        if (finishSeen) {
            // Some OpenAI-compatible servers end without [DONE]; the answer itself was whole.
            complete(out);
        } else {
            abort(out, ProviderErrors.error("upstream stream ended before the answer was complete", "upstream_error"));
        }
    }
}
