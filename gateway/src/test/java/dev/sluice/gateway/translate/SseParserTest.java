package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SseParserTest {

    static Stream<Arguments> streams() {
        return Stream.of(
                Arguments.of("LF line ends", "data: a\n\ndata: b\n\n", List.of(ev("a"), ev("b"))),
                Arguments.of("CRLF line ends", "data: a\r\n\r\ndata: b\r\n\r\n", List.of(ev("a"), ev("b"))),
                Arguments.of("CR line ends", "data: a\r\rdata: b\r\r", List.of(ev("a"), ev("b"))),
                Arguments.of("event names", "event: ping\ndata: {}\n\ndata: x\n\n",
                        List.of(new SseEvent("ping", "{}"), ev("x"))),
                Arguments.of("name resets after dispatch", "event: a\ndata: 1\n\ndata: 2\n\n",
                        List.of(new SseEvent("a", "1"), ev("2"))),
                Arguments.of("multi-line data joins with LF", "data: one\ndata: two\ndata:\n\n", List.of(ev("one\ntwo\n"))),
                Arguments.of("only one space after the colon is dropped", "data:x\n\ndata:  y\n\n", List.of(ev("x"), ev(" y"))),
                Arguments.of("comments are skipped", ": keep-alive\ndata: a\n: again\n\n", List.of(ev("a"))),
                Arguments.of("id, retry and unknown fields are ignored", "id: 7\nretry: 10\nfoo: bar\ndata: a\n\n", List.of(ev("a"))),
                Arguments.of("event without data is not dispatched", "event: x\n\ndata: a\n\n", List.of(ev("a"))),
                Arguments.of("field without colon", "data\n\n", List.of(ev(""))),
                Arguments.of("blank lines in a row dispatch once", "data: a\n\n\n\n", List.of(ev("a"))),
                Arguments.of("leading byte-order mark", "\uFEFFdata: a\n\n", List.of(ev("a"))),
                Arguments.of("multi-byte UTF-8", "data: héllo 🌍 ✓\n\n", List.of(ev("héllo 🌍 ✓"))),
                Arguments.of("colon inside the value", "data: {\"a\":\"b:c\"}\n\n", List.of(ev("{\"a\":\"b:c\"}"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void parsesWholeStream(String description, String stream, List<SseEvent> expected) {
        assertThat(parseAll(stream.getBytes(StandardCharsets.UTF_8), 0)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}, byte by byte")
    @MethodSource("streams")
    void parsesByteByByte(String description, String stream, List<SseEvent> expected) {
        assertThat(parseAll(stream.getBytes(StandardCharsets.UTF_8), 1)).isEqualTo(expected);
    }

    @Test
    void crAndLfSplitAcrossChunksCountAsOneLineEnd() {
        SseParser parser = new SseParser();
        assertThat(parser.feed(bytes("data: a\r"))).isEmpty();
        assertThat(parser.feed(bytes("\n\r"))).containsExactly(ev("a"));
        assertThat(parser.feed(bytes("\ndata: b\r\n\r\n"))).containsExactly(ev("b"));
    }

    @Test
    void finishDispatchesAnEventThatLacksItsBlankLine() {
        SseParser parser = new SseParser();
        assertThat(parser.feed(bytes("data: a\n\ndata: b"))).containsExactly(ev("a"));
        assertThat(parser.finish()).containsExactly(ev("b"));
    }

    @Test
    void finishWithNothingPendingReturnsNothing() {
        SseParser parser = new SseParser();
        parser.feed(bytes("data: a\n\n: comment\n"));
        assertThat(parser.finish()).isEmpty();
    }

    @Test
    void aLineOverTheCapIsAnUpstreamFormatError() {
        SseParser parser = new SseParser(16);
        assertThat(parser.feed(bytes("data: 0123456789"))).isEmpty(); // exactly 16 bytes
        assertThatThrownBy(() -> parser.feed(bytes("x")))
                .isInstanceOf(UpstreamFormatException.class)
                .hasMessage("event-stream line longer than 16 bytes");
    }

    @Test
    void rejectsANonPositiveCap() {
        assertThatThrownBy(() -> new SseParser(0)).hasMessage("maxLineBytes: 0 (expected: > 0)");
    }

    @Test
    void recognisesTheEndMarker() {
        assertThat(ev("[DONE]").isDone()).isTrue();
        assertThat(ev(" [DONE] ").isDone()).isTrue();
        assertThat(ev("{}").isDone()).isFalse();
    }

    /** Feeds in pieces of {@code step} bytes (0: all at once) and finishes. */
    static List<SseEvent> parseAll(byte[] bytes, int step) {
        SseParser parser = new SseParser();
        List<SseEvent> out = new ArrayList<>();
        if (step == 0) {
            out.addAll(parser.feed(bytes));
        } else {
            for (int i = 0; i < bytes.length; i += step) {
                out.addAll(parser.feed(java.util.Arrays.copyOfRange(bytes, i, Math.min(i + step, bytes.length))));
            }
        }
        out.addAll(parser.finish());
        return out;
    }

    private static SseEvent ev(String data) {
        return new SseEvent(SseEvent.DEFAULT_EVENT, data);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
