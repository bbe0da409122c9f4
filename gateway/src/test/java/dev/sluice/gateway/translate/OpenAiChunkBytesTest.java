package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The byte scan of an OpenAI chunk reads what the parser reads, and leaves the unusual to it. */
class OpenAiChunkBytesTest {

    static Stream<String> objects() {
        return OpenAiChunkScanTest.chunks().filter(c -> c.startsWith("{"));
    }

    @ParameterizedTest
    @MethodSource("objects")
    void readsEveryObjectChunkAsTheParserDoes(String data) {
        Optional<OpenAiChunkScan> fast = bytes(data);
        assertThat(fast).isPresent();
        assertSame(fast.get(), parsed(data));
    }

    @Test
    void readsAChunkAsTheFakeUpstreamAndOpenAiSendIt() {
        String chunk = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                + "\"model\":\"gpt-4o-mini\",\"system_fingerprint\":null,\"choices\":[{\"index\":0,"
                + "\"delta\":{\"content\":\" fake upstream.\"},\"logprobs\":null,\"finish_reason\":null}],"
                + "\"usage\":null,\"obfuscation\":\"a1\"}";
        OpenAiChunkScan s = bytes(chunk).orElseThrow();
        assertThat(s.textChars()).isEqualTo(15);
        assertThat(s.finishReason()).isFalse();
        assertThat(s.usage()).isEmpty();
        assertThat(s.noChoices()).isFalse();
    }

    @Test
    void readsTheUsageChunk() {
        OpenAiChunkScan s = bytes("{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":7,"
                + "\"total_tokens\":19}}").orElseThrow();
        assertThat(s.usageOnly()).isTrue();
        assertThat(s.usage().orElseThrow().openAi(true).inputTokens()).isEqualTo(12);
        assertThat(s.usage().orElseThrow().openAi(true).outputTokens()).isEqualTo(7);
    }

    @Test
    void countsEscapesAndUtf8AsCodePoints() {
        // é (2 bytes), 😀 (4 bytes), 中 (3 bytes), \n, \" , \u00e9, a surrogate pair escaped, a lone high surrogate escaped.
        String content = "\u00e9\ud83d\ude00\u4e2d\\n\\\"\\u00e9\\ud83d\\ude00\\ud83d";
        OpenAiChunkScan s = bytes("{\"choices\":[{\"delta\":{\"content\":\"" + content + "\"}}]}").orElseThrow();
        assertThat(s.textChars()).isEqualTo(8);
        assertThat(s.textChars()).isEqualTo(parsed("{\"choices\":[{\"delta\":{\"content\":\"" + content + "\"}}]}").orElseThrow().textChars());
    }

    @Test
    void aLastUsageCountsAndOneThatIsNotAnObjectIsNone() {
        assertThat(bytes("{\"usage\":{\"prompt_tokens\":1},\"usage\":null}").orElseThrow().usage()).isEmpty();
        assertThat(bytes("{\"usage\":null,\"usage\":{\"prompt_tokens\":2}}").orElseThrow().usage().orElseThrow()
                .openAi(true).inputTokens()).isEqualTo(2);
    }

    @Test
    void leavesToTheParserWhatIsNotStrictJsonOrIsUnusual() {
        for (String data : new String[] {
                "", "  ", "42", "[1]", "\"s\"", "not json", "{\"choices\":[", "{\"a\":1} trailing", "{\"a\":01}",
                "{\"a\":tru}", "{\"a\":1,}", "{'a':1}", "{\"a\":\"\u0001\"}", "{\"a\":\"\\x\"}", "{\"us\\u0061ge\":{}}",
                "{\"type\":{\"usage\":{\"prompt_tokens\":1}}}", "{\"choices\":[{\"finish_reason\":{\"text\":\"x\"}}]}",
                "{\"a\":" + "[".repeat(70) + "]".repeat(70) + "}", "{\"a\":" + "1".repeat(101) + "}"}) {
            assertThat(bytes(data)).as(data).isEmpty();
        }
        byte[] badUtf8 = {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'};
        assertThat(OpenAiChunkBytes.scan(badUtf8, 0, badUtf8.length)).isEmpty();
        byte[] encodedSurrogate = {'{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'};
        assertThat(OpenAiChunkBytes.scan(encodedSurrogate, 0, encodedSurrogate.length)).isEmpty();
    }

    @Test
    void readsOnlyItsOwnRangeOfTheArray() {
        byte[] text = "{\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}".getBytes(StandardCharsets.UTF_8);
        byte[] framed = new byte[text.length + 8];
        Arrays.fill(framed, (byte) '"');
        System.arraycopy(text, 0, framed, 4, text.length);
        assertThat(OpenAiChunkBytes.scan(framed, 4, text.length).orElseThrow().textChars()).isEqualTo(2);
        assertThat(OpenAiChunkBytes.scan(framed, 4, text.length - 1)).isEmpty();
    }

    /** Whether two scans say the same, usage compared by what it maps to. */
    static void assertSame(OpenAiChunkScan fast, Optional<OpenAiChunkScan> parsed) {
        assertThat(parsed).isPresent();
        OpenAiChunkScan p = parsed.get();
        assertThat(fast.finishReason()).isEqualTo(p.finishReason());
        assertThat(fast.textChars()).isEqualTo(p.textChars());
        assertThat(fast.noChoices()).isEqualTo(p.noChoices());
        assertThat(fast.responsesEvent()).isEqualTo(p.responsesEvent());
        assertThat(fast.usage().map(u -> u.openAi(true))).isEqualTo(p.usage().map(u -> u.openAi(true)));
    }

    private static Optional<OpenAiChunkScan> bytes(String data) {
        byte[] b = data.getBytes(StandardCharsets.UTF_8);
        return OpenAiChunkBytes.scan(b, 0, b.length);
    }

    private static Optional<OpenAiChunkScan> parsed(String data) {
        byte[] b = data.getBytes(StandardCharsets.UTF_8);
        return OpenAiChunkScan.parsed(b, 0, b.length);
    }
}
