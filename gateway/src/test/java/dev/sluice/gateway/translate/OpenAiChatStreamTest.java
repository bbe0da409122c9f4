package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A native OpenAI stream goes on as the bytes that came, less what the gateway itself asked for. */
class OpenAiChatStreamTest {

    private static final String ROLE = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n";
    private static final String TEXT = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello there\"}}]}\n\n";
    private static final String FINISH = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
    private static final String USAGE = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,"
            + "\"total_tokens\":15}}\n\n";
    private static final String DONE = "data: [DONE]\n\n";

    @Test
    void aReadOfWholeEventsThatAllPassIsReturnedItself() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        byte[] read = utf8(ROLE + TEXT + FINISH + USAGE + DONE);
        assertThat(c.feed(read)).isSameAs(read);
        assertThat(c.finish()).isEmpty();
        assertThat(c.completed()).isTrue();
        assertThat(c.usage().usage()).isEqualTo(new ObservedUsage(12, 3, 0, 0, true));
    }

    @Test
    void theUsageChunkTheGatewayAskedForIsCutOut() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(false);
        assertThat(text(c.feed(utf8(ROLE + TEXT + FINISH + USAGE + DONE)))).isEqualTo(ROLE + TEXT + FINISH + DONE);
        assertThat(c.usage().finalUsageSeen()).isTrue();
    }

    @Test
    void anEventSplitAcrossReadsGoesOutWhenItIsWhole() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        String head = TEXT.substring(0, 20);
        assertThat(text(c.feed(utf8(ROLE + head)))).isEqualTo(ROLE);
        assertThat(text(c.feed(utf8(TEXT.substring(20) + FINISH)))).isEqualTo(TEXT + FINISH);
        assertThat(text(c.feed(utf8(DONE)))).isEqualTo(DONE);
    }

    @Test
    void commentsAndCrlfLineEndsPassAsTheyCame() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(false);
        String upstream = ": keep-alive\r\n\r\n" + TEXT.replace("\n", "\r\n") + "id: 4\r\n" + FINISH.replace("\n", "\r\n");
        assertThat(text(c.feed(utf8(upstream)))).isEqualTo(upstream);
    }

    @Test
    void nothingAfterDoneGoesOut() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        assertThat(text(c.feed(utf8(FINISH + DONE + TEXT + "data: {\"cho")))).isEqualTo(FINISH + DONE);
        assertThat(c.closed()).isTrue();
        assertThat(c.feed(utf8(TEXT))).isEmpty();
        assertThat(c.finish()).isEmpty();
    }

    @Test
    void theLfOfDonesBlankLineStillGoesOutWhenAReadEndedBetweenItsCrAndLf() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        String crlf = FINISH.replace("\n", "\r\n") + "data: [DONE]\r\n\r\n";
        int cut = crlf.length() - 1;
        String first = text(c.feed(utf8(crlf.substring(0, cut))));
        String rest = text(c.feed(utf8(crlf.substring(cut) + TEXT)));
        assertThat(first + rest).isEqualTo(crlf);
        assertThat(c.completed()).isTrue();
    }

    @Test
    void malformedDataEndsTheStreamAfterTheEventsBeforeIt() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        String out = text(c.feed(utf8(TEXT + "data: {oops\n\n" + FINISH)));
        assertThat(out).startsWith(TEXT + "data: {\"error\":{\"message\":\"upstream sent malformed stream data\"")
                .endsWith("}}\n\n" + DONE);
        assertThat(c.completed()).isFalse();
        assertThat(c.usage().usage()).isEqualTo(new ObservedUsage(0, 3, 0, 0, false));
    }

    @Test
    void aLastEventWithoutItsBlankLineGetsOne() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        assertThat(c.feed(utf8(TEXT + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}")))
                .isEqualTo(utf8(TEXT));
        assertThat(text(c.finish())).isEqualTo(FINISH + DONE);
        assertThat(c.completed()).isTrue();

        ChatStreamConverter lf = ChatStreams.fromOpenAi(true);
        lf.feed(utf8(FINISH + "data: [DONE]\n"));
        assertThat(text(lf.finish())).isEqualTo(DONE);
    }

    @Test
    void aStreamThatStopsBeforeItsAnswerEndsWithAnError() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        c.feed(utf8(TEXT));
        assertThat(text(c.finish())).contains("upstream stream ended before the answer was complete").endsWith(DONE);
        assertThat(c.completed()).isFalse();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Role, text with an escape and non-ASCII, a tool call, finish, usage and [DONE], as a provider sends them. */
    private static final String EVERY_KIND = ROLE
            + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\u00e9 \\u00e9\\n\ud83d\ude00\"}}]}\n\n"
            + "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n"
            + FINISH + USAGE + DONE;

    @Test
    void everySplitPointOfTheEventsAcrossTwoReadsGivesTheSameBytesAndUsage() {
        byte[] whole = utf8(EVERY_KIND);
        for (boolean forwardUsage : new boolean[] {true, false}) {
            ChatStreamConverter once = ChatStreams.fromOpenAi(forwardUsage);
            String expected = text(once.feed(whole)) + text(once.finish());
            // The text is "caf\u00e9 \u00e9\\n" plus an emoji (8 code points) and "{}" (2): 10, or 3 tokens at 4 a token.
            assertThat(once.usage().estimatedOutputTokensFromText()).isEqualTo(3);
            for (int cut = 0; cut <= whole.length; cut++) {
                ChatStreamConverter c = ChatStreams.fromOpenAi(forwardUsage);
                byte[] out1 = c.feed(java.util.Arrays.copyOfRange(whole, 0, cut));
                byte[] out2 = c.feed(java.util.Arrays.copyOfRange(whole, cut, whole.length));
                byte[] out3 = c.finish();
                assertThat(text(concat(out1, out2, out3))).as("cut at %d", cut).isEqualTo(expected);
                assertThat(c.usage().usage()).as("cut at %d", cut).isEqualTo(new ObservedUsage(12, 3, 0, 0, true));
                assertThat(c.completed()).isTrue();
            }
        }
    }

    @Test
    void everyPairOfSplitPointsAcrossThreeReadsGivesTheSameBytes() {
        byte[] whole = utf8(EVERY_KIND);
        ChatStreamConverter once = ChatStreams.fromOpenAi(false);
        String expected = text(once.feed(whole)) + text(once.finish());
        for (int a = 0; a <= whole.length; a++) {
            for (int b = a; b <= whole.length; b++) {
                ChatStreamConverter c = ChatStreams.fromOpenAi(false);
                byte[] o1 = c.feed(java.util.Arrays.copyOfRange(whole, 0, a));
                byte[] o2 = c.feed(java.util.Arrays.copyOfRange(whole, a, b));
                byte[] o3 = c.feed(java.util.Arrays.copyOfRange(whole, b, whole.length));
                String out = text(concat(o1, o2, o3, c.finish()));
                if (!out.equals(expected)) { // asserted only when it fails: some 100,000 pairs
                    assertThat(out).as("cuts at %d and %d", a, b).isEqualTo(expected);
                }
            }
        }
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
