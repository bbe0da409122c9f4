package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every converter ends with exactly one [DONE], whatever ends the stream. */
class ConverterLifecycleTest {

    private static final String START = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
            + "{\"usage\":{\"input_tokens\":4,\"output_tokens\":1}}}\n\n";

    @Test
    void failAfterPartialOutputSendsTheErrorThenDone() {
        ChatStreamConverter c = ChatStreams.fromAnthropic(Fixtures.META, false);
        c.feed(bytes(START));
        List<String> out = Fixtures.wire(c.fail("upstream timed out after 30s"));
        assertThat(out).containsExactly(
                "data: {\"error\":{\"message\":\"upstream timed out after 30s\",\"type\":\"upstream_error\",\"param\":null,"
                        + "\"code\":\"upstream_error\"}}\n\n",
                "data: [DONE]\n\n");
        assertThat(c.closed()).isTrue();
        assertThat(c.completed()).isFalse();
        assertThat(Fixtures.wire(c.fail("again"))).isEmpty();
        assertThat(Fixtures.wire(c.finish())).isEmpty();
        assertThat(c.usage().usage()).isEqualTo(new ObservedUsage(4, 1, 0, 0, false));
    }

    @Test
    void malformedUpstreamDataEndsTheStream() {
        ChatStreamConverter c = ChatStreams.fromGemini(Fixtures.META, false);
        List<String> out = Fixtures.wire(c.feed(bytes("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]}}]}\n\ndata: {oops\n\n"
                + "data: {\"candidates\":[]}\n\n")));
        assertThat(Fixtures.events(out)).hasSize(4);
        assertThat(out.get(2)).contains("\"message\":\"upstream sent malformed stream data\"");
        assertThat(out.get(3)).isEqualTo("data: [DONE]\n\n");
    }

    @Test
    void aGeminiStreamEndingWithoutFinishReasonIsBroken() {
        ChatStreamConverter c = ChatStreams.fromGemini(Fixtures.META, true);
        c.feed(bytes("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]}}]}\n\n"));
        assertThat(Fixtures.wire(c.finish())).last().isEqualTo("data: [DONE]\n\n");
        assertThat(c.completed()).isFalse();
    }

    @Test
    void anAnthropicStreamWithMessageDeltaButNoMessageStopStillCompletes() {
        ChatStreamConverter c = ChatStreams.fromAnthropic(Fixtures.META, false);
        c.feed(bytes(START + "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":8}}\n\n"));
        List<String> out = Fixtures.wire(c.finish());
        assertThat(out).hasSize(2);
        assertThat(Fixtures.events(out).get(0).path("choices").path(0).path("finish_reason").textValue()).isEqualTo("length");
        assertThat(c.completed()).isTrue();
    }

    @Test
    void anEmptyUpstreamIsBroken() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(false);
        List<String> out = Fixtures.wire(c.finish());
        assertThat(out).hasSize(2).last().isEqualTo("data: [DONE]\n\n");
        assertThat(c.completed()).isFalse();
    }

    @Test
    void anOverlongUpstreamLineEndsTheStream() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        byte[] huge = new byte[SseParser.DEFAULT_MAX_LINE_BYTES + 1];
        java.util.Arrays.fill(huge, (byte) 'a');
        List<String> out = Fixtures.wire(c.feed(huge));
        assertThat(out.get(0)).contains("event-stream line longer than 8388608 bytes");
        assertThat(c.closed()).isTrue();
    }

    @Test
    void aTranslatedStreamUsageChunkFallsBackToObservedCountsWithoutProviderUsage() {
        ChatStreamConverter c = ChatStreams.fromGemini(Fixtures.META, true);
        c.feed(bytes("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"abcdefgh\"}]},\"finishReason\":\"STOP\"}]}\n\n"));
        List<String> out = Fixtures.wire(c.finish());
        assertThat(Fixtures.events(out).get(1).path("usage")).isEqualTo(Fixtures.parse(
                "{\"prompt_tokens\":0,\"completion_tokens\":2,\"total_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":0}}"));
    }

    @Test
    void valuesAreValidated() {
        assertThatThrownBy(() -> new CompletionMeta("", "m", 0)).hasMessage("id: \"\" (expected: non-blank)");
        assertThatThrownBy(() -> new CompletionMeta("i", "m", -1)).hasMessage("created: -1 (expected: >= 0)");
        assertThatThrownBy(() -> new ObservedUsage(-1, 0, 0, 0, true)).hasMessage("inputTokens: -1 (expected: >= 0)");
        assertThatThrownBy(() -> new ObservedUsage(5, 0, 0, 6, true)).hasMessage("cacheWriteTokens: 6 (expected: <= inputTokens 5)");
        ObservedUsage u = new ObservedUsage(30, 7, 100, 5, true);
        assertThat(u.promptTokens()).isEqualTo(130);
        assertThat(u.totalTokens()).isEqualTo(137);
        assertThat(u.toActualTokens()).isEqualTo(new dev.sluice.estimate.ActualTokens(130, 7, 100));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
