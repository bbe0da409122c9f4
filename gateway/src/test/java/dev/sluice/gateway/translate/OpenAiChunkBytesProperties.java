package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Whatever the byte scan of an OpenAI chunk answers, the parser answers the same: on chunks built
 * from the fields that matter (nested anywhere, with escapes, non-ASCII text, repeats and nulls)
 * and on the same chunks cut short or with a byte changed.
 */
class OpenAiChunkBytesProperties {

    private static final List<String> KEYS = List.of("choices", "usage", "type", "delta", "content", "refusal",
            "text", "finish_reason", "tool_calls", "function", "arguments", "index", "prompt_tokens",
            "completion_tokens", "id");

    @Provide
    Arbitrary<String> chunks() {
        return value(4).map(v -> v.startsWith("{") ? v : "{\"choices\":[" + v + "]}");
    }

    private Arbitrary<String> value(int depth) {
        Arbitrary<String> scalar = Arbitraries.oneOf(
                Arbitraries.of("null", "true", "false", "0", "-1.5e3", "12", "\"stop\"", "\"response.completed\"",
                        "\"\"", "\"h\\u00e9\\ud83d\\ude00 \u4e2d\\n\\\"\"", "\"\\ud83d\"", "\"\ud83d\ude00\""),
                Arbitraries.strings().ofMaxLength(6).map(OpenAiChunkBytesProperties::quoted));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<String> member = Arbitraries.of(KEYS).flatMap(k -> value(depth - 1).map(v -> quoted(k) + ":" + v));
        Arbitrary<String> object = member.list().ofMaxSize(4).map(ms -> "{" + String.join(",", ms) + "}");
        Arbitrary<String> array = value(depth - 1).list().ofMaxSize(3).map(vs -> "[" + String.join(", ", vs) + "]");
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(2, scalar), net.jqwik.api.Tuple.of(3, object),
                net.jqwik.api.Tuple.of(1, array));
    }

    private static String quoted(String s) {
        return Json.write(new com.fasterxml.jackson.databind.node.TextNode(s));
    }

    @Property(tries = 1000)
    void answersAsTheParserDoes(@ForAll("chunks") String chunk) {
        byte[] b = chunk.getBytes(StandardCharsets.UTF_8);
        Optional<OpenAiChunkScan> fast = OpenAiChunkBytes.scan(b, 0, b.length);
        // Left to the parser on purpose: a "type" that is not a string or has an escape, a "finish_reason"
        // that is an object or array.
        boolean leftOnPurpose = chunk.matches("(?s).*\"type\":(\"[^\"\\\\]*\\\\|[^\"]).*") || chunk.matches("(?s).*\"finish_reason\":[\\[{].*");
        if (!leftOnPurpose) {
            assertThat(fast).as("a strict JSON object is scanned, not left to the parser: %s", chunk).isPresent();
        }
        if (fast.isPresent()) {
            OpenAiChunkBytesTest.assertSame(fast.get(), OpenAiChunkScan.parsed(b, 0, b.length));
        }
    }

    @Property(tries = 1000)
    void answersAsTheParserDoesOnBrokenChunks(@ForAll("chunks") String chunk, @ForAll @IntRange(max = 10_000) int at,
            @ForAll @IntRange(min = 0, max = 255) int replacement, @ForAll boolean cut) {
        byte[] b = chunk.getBytes(StandardCharsets.UTF_8);
        int p = at % b.length;
        int length = b.length;
        if (cut) {
            length = p;
        } else {
            b[p] = (byte) replacement;
        }
        Optional<OpenAiChunkScan> fast = OpenAiChunkBytes.scan(b, 0, length);
        if (fast.isPresent()) {
            OpenAiChunkBytesTest.assertSame(fast.get(), OpenAiChunkScan.parsed(b, 0, length));
        }
    }
}
