package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Streaming usage rules, one per test. */
class StreamUsageTrackerTest {

    @Test
    void openAiFinalUsageChunkIsTheReportedUsage() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.OPENAI);
        t.feed(bytes("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}],\"usage\":null}\n\n"));
        assertThat(t.finalUsageSeen()).isFalse();
        t.feed(bytes("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"total_tokens\":12}}\n\n"
                + "data: [DONE]\n\n"));
        assertThat(t.finalUsageSeen()).isTrue();
        assertThat(t.usage()).isEqualTo(new ObservedUsage(10, 2, 0, 0, true));
    }

    @Test
    void openAiStreamWithoutUsageChunkEstimatesOutputFromText() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.OPENAI);
        t.feed(bytes("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"123456789\"}}]}\n\n"
                + "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n"
                + "data: [DONE]\n\n"));
        assertThat(t.finalUsageSeen()).isFalse();
        assertThat(t.reported()).isEmpty();
        assertThat(t.estimatedOutputTokensFromText()).isEqualTo(3); // 11 characters / 4, rounded up
        assertThat(t.usage()).isEqualTo(new ObservedUsage(0, 3, 0, 0, false));
    }

    @Test
    void openAiLegacyCompletionsTextIsCounted() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.OPENAI);
        t.feed(bytes("data: {\"choices\":[{\"index\":0,\"text\":\"abcdefgh\"}]}\n\n"));
        assertThat(t.estimatedOutputTokensFromText()).isEqualTo(2);
    }

    @Test
    void openAiResponsesApiUsageComesWithCompletion() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.OPENAI);
        t.feed(bytes("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi there\"}\n\n"));
        assertThat(t.usage()).isEqualTo(new ObservedUsage(0, 2, 0, 0, false));
        t.feed(bytes("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":"
                + "{\"input_tokens\":50,\"input_tokens_details\":{\"cached_tokens\":20},\"output_tokens\":3,\"total_tokens\":53}}}\n\n"));
        assertThat(t.usage()).isEqualTo(new ObservedUsage(30, 3, 20, 0, true));
    }

    @Test
    void anthropicInputComesFromMessageStartAndOutputFromTheCumulativeMessageDelta() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.ANTHROPIC);
        t.feed(bytes(anthropic("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":25,"
                + "\"cache_creation_input_tokens\":5,\"cache_read_input_tokens\":100,\"output_tokens\":1}}}")));
        assertThat(t.reported()).contains(new ObservedUsage(30, 1, 100, 5, true));
        assertThat(t.finalUsageSeen()).isFalse();
        t.feed(bytes(anthropic("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":10}}")));
        t.feed(bytes(anthropic("{\"type\":\"message_delta\",\"delta\":{},\"usage\":{\"output_tokens\":15}}")));
        // Cumulative: 15, not 10 + 15; input fields not repeated are kept.
        assertThat(t.usage()).isEqualTo(new ObservedUsage(30, 15, 100, 5, true));
    }

    @Test
    void anthropicMessageDeltaMayRepeatAndCorrectInputFields() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.ANTHROPIC);
        t.feed(bytes(anthropic("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}")));
        t.feed(bytes(anthropic("{\"type\":\"message_delta\",\"usage\":{\"input_tokens\":27,\"cache_read_input_tokens\":3,"
                + "\"output_tokens\":9}}")));
        assertThat(t.usage()).isEqualTo(new ObservedUsage(27, 9, 3, 0, true));
    }

    @Test
    void anthropicBrokenStreamKeepsInputAndEstimatesOutput() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.ANTHROPIC);
        t.feed(bytes(anthropic("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}")
                + anthropic("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"🌍🌍🌍🌍🌍\"}}")
                + anthropic("{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"abc\"}}")));
        // 5 emoji are 5 code points, plus 3: 8 characters, 2 tokens.
        assertThat(t.usage()).isEqualTo(new ObservedUsage(25, 2, 0, 0, false));
    }

    @Test
    void geminiLastUsageMetadataWins() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.GEMINI);
        t.feed(bytes("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}}],"
                + "\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":1}}\r\n\r\n"));
        assertThat(t.finalUsageSeen()).isFalse();
        assertThat(t.usage()).isEqualTo(new ObservedUsage(9, 1, 0, 0, false));
        t.feed(bytes("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"b\"}]},\"finishReason\":\"STOP\"}],"
                + "\"usageMetadata\":{\"promptTokenCount\":9,\"cachedContentTokenCount\":4,\"candidatesTokenCount\":2,"
                + "\"thoughtsTokenCount\":7}}\r\n\r\n"));
        assertThat(t.finalUsageSeen()).isTrue();
        assertThat(t.usage()).isEqualTo(new ObservedUsage(5, 9, 4, 0, true));
    }

    @Test
    void acceptTakesEventsFromASharedParser() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.OPENAI);
        t.accept(new SseEvent("message", "{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}"));
        t.accept(new SseEvent("message", "not json"));
        t.accept(new SseEvent("message", "[DONE]"));
        assertThat(t.usage()).isEqualTo(new ObservedUsage(3, 4, 0, 0, true));
    }

    @Test
    void finishCountsALastEventWithoutBlankLine() {
        StreamUsageTracker t = StreamUsageTracker.of(WireFormat.OPENAI);
        t.feed(bytes("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}"));
        assertThat(t.reported()).isEqualTo(Optional.empty());
        t.finish();
        assertThat(t.usage()).isEqualTo(new ObservedUsage(3, 4, 0, 0, true));
    }

    @Test
    void nothingSeenIsZeroAndNotReported() {
        assertThat(StreamUsageTracker.of(WireFormat.GEMINI).usage()).isEqualTo(new ObservedUsage(0, 0, 0, 0, false));
    }

    private static String anthropic(String data) {
        return "event: x\ndata: " + data + "\n\n";
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
