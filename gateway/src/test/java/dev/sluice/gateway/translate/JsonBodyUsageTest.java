package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.request.ObservedUsage;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A whole answer's usage read piece by piece equals the usage read from the whole, wherever it is cut. */
class JsonBodyUsageTest {

    private static final String OPENAI = """
            {"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",
             "content":"a \\"quoted\\" {brace} [and] \\\\ \\u00e9 usage"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19,
              "prompt_tokens_details":{"cached_tokens":4}}}""";
    private static final String ANTHROPIC = """
            {"id":"m","type":"message","content":[{"type":"text","text":"usage: {\\"usage\\":1}"}],
             "usage":{"input_tokens":25,"cache_read_input_tokens":3,"output_tokens":15}}""";
    private static final String GEMINI = """
            {"candidates":[{"content":{"parts":[{"text":"hi"}]}}],"usage":{"x":1},
             "usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"totalTokenCount":13},"modelVersion":"g"}""";
    private static final String REPEATED = """
            {"usage":{"prompt_tokens":1,"completion_tokens":1},"id":"c","usage":{"prompt_tokens":5,"completion_tokens":6}}""";
    private static final String NOT_AN_OBJECT = """
            {"usage":{"prompt_tokens":1,"completion_tokens":1},"usage":null}""";

    private static Optional<ObservedUsage> inPieces(WireFormat f, byte[] body, int... cuts) {
        JsonBodyUsage u = new JsonBodyUsage(f);
        int from = 0;
        for (int cut : cuts) {
            u.feed(body, from, cut - from);
            from = cut;
        }
        u.feed(body, from, body.length - from);
        return u.finish();
    }

    @Test
    void everyCutGivesTheUsageOfTheWhole() {
        record Case(WireFormat format, String body) {}
        for (Case c : new Case[] {new Case(WireFormat.OPENAI, OPENAI), new Case(WireFormat.ANTHROPIC, ANTHROPIC),
                new Case(WireFormat.GEMINI, GEMINI), new Case(WireFormat.OPENAI, REPEATED),
                new Case(WireFormat.OPENAI, NOT_AN_OBJECT), new Case(WireFormat.OPENAI, "{\"id\":\"no usage\"}")}) {
            byte[] body = c.body().getBytes(StandardCharsets.UTF_8);
            Optional<ObservedUsage> whole = UsageExtractor.scan(c.format(), body);
            for (int i = 0; i <= body.length; i++) {
                assertThat(inPieces(c.format(), body, i)).as(c.body() + " cut at " + i).isEqualTo(whole);
                for (int j = i; j <= body.length; j += 7) {
                    assertThat(inPieces(c.format(), body, i, j)).as(c.body() + " cut at " + i + ", " + j).isEqualTo(whole);
                }
            }
        }
        assertThat(inPieces(WireFormat.OPENAI, REPEATED.getBytes(StandardCharsets.UTF_8)).orElseThrow().outputTokens())
                .isEqualTo(6);
        assertThat(inPieces(WireFormat.OPENAI, NOT_AN_OBJECT.getBytes(StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void aTruncatedOrForeignBodyIsNotJson() {
        for (String body : new String[] {OPENAI.substring(0, OPENAI.length() - 3), "", "[1,2]", "<html>", "{} {}",
                "{\"a\":\"open string}"}) {
            assertThatThrownBy(() -> inPieces(WireFormat.OPENAI, body.getBytes(StandardCharsets.UTF_8)))
                    .as(body).isInstanceOf(UpstreamFormatException.class);
        }
    }
}
