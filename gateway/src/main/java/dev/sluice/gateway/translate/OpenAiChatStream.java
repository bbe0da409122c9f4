package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

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
