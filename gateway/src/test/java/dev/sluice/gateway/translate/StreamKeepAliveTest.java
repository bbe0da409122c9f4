package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A translated stream shows the client it is alive while the model produces nothing it can see:
 * an upstream read whose events all come to nothing downstream yields one SSE comment, which
 * clients skip. A read that completes no event yields nothing.
 */
class StreamKeepAliveTest {

    private static final String START = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
            + "{\"usage\":{\"input_tokens\":4,\"output_tokens\":1}}}\n\n";
    private static final String PING = "event: ping\ndata: {\"type\": \"ping\"}\n\n";
    private static final String THINKING = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
            + "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me weigh this.\"}}\n\n";

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aReadOfOnlyPingsYieldsOneComment() {
        ChatStreamConverter c = ChatStreams.fromAnthropic(Fixtures.META, false);
        c.feed(bytes(START));
        assertThat(text(c.feed(bytes(PING + PING)))).isEqualTo(": keep-alive\n\n");
    }

    @Test
    void aReadOfOnlyThinkingYieldsOneComment() {
        ChatStreamConverter c = ChatStreams.fromAnthropic(Fixtures.META, false);
        c.feed(bytes(START));
        assertThat(text(c.feed(bytes(THINKING)))).isEqualTo(": keep-alive\n\n");
    }

    @Test
    void aReadThatCompletesNoEventYieldsNothing() {
        ChatStreamConverter c = ChatStreams.fromAnthropic(Fixtures.META, false);
        c.feed(bytes(START));
        assertThat(c.feed(bytes(PING.substring(0, 12)))).isEmpty();
        assertThat(text(c.feed(bytes(PING.substring(12))))).isEqualTo(": keep-alive\n\n");
    }

    @Test
    void aReadWithVisibleOutputCarriesNoComment() {
        ChatStreamConverter c = ChatStreams.fromAnthropic(Fixtures.META, false);
        String out = text(c.feed(bytes(START + PING)));
        assertThat(out).startsWith("data: ").doesNotContain(": keep-alive");
    }

    @Test
    void aClosedStreamYieldsNothingMore() {
        ChatStreamConverter c = ChatStreams.fromAnthropic(Fixtures.META, false);
        c.feed(bytes(START + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
        assertThat(c.closed()).isTrue();
        assertThat(c.feed(bytes(PING))).isEmpty();
    }
}
