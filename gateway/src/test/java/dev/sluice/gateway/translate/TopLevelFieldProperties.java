package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For any JSON object, the structural pass finds what a parsed tree holds under the key: the
 * same value, or its absence; it defers only where a key has escapes. And it never decides for
 * a body cut short.
 */
class TopLevelFieldProperties {

    private static final byte[] USAGE = "usage".getBytes(StandardCharsets.US_ASCII);

    @Provide
    Arbitrary<String> objects() {
        return members(3).map(l -> "{" + String.join(",", l) + "}");
    }

    private Arbitrary<List<String>> members(int depth) {
        Arbitrary<String> key = Arbitraries.of("usage", "id", "choices", "a\\\"b", "u{s}a[g]e", "", "us\\u0061ge", "usage ");
        return Combinators.combine(key, value(depth), whitespace(), whitespace())
                .as((k, v, w1, w2) -> w1 + "\"" + k + "\"" + w2 + ":" + w1 + v + w2).list().ofMaxSize(5);
    }

    private Arbitrary<String> value(int depth) {
        Arbitrary<String> scalar = Arbitraries.oneOf(
                Arbitraries.of("1", "-0.5e3", "true", "false", "null", "12E+2", "\"\"", "\"usage\"", "\"}\\\"{[\"",
                        "\"\\\\\"", "\"caf\u00e9 \\u00e9\""),
                Arbitraries.strings().withChars("ab{}[]\":,\\ ").ofMaxLength(6)
                        .map(s -> "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<String> array = value(depth - 1).list().ofMaxSize(3).map(l -> "[" + String.join(",", l) + "]");
        Arbitrary<String> object = members(depth - 1).map(l -> "{" + String.join(",", l) + "}");
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, scalar), net.jqwik.api.Tuple.of(1, array),
                net.jqwik.api.Tuple.of(1, object));
    }

    private Arbitrary<String> whitespace() {
        return Arbitraries.of("", "", " ", "\n\t ");
    }

    @Property(tries = 2000)
    void findsWhatTheTreeHolds(@ForAll("objects") String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        JsonNode tree = Json.parse(bytes).orElseThrow();
        long slice = TopLevelField.find(bytes, USAGE);
        if (slice == TopLevelField.UNDECIDED) {
            assertThat(json).as("only an escaped key is left undecided").contains("\\");
            return;
        }
        if (!tree.has("usage")) {
            assertThat(slice).isEqualTo(TopLevelField.ABSENT);
            return;
        }
        assertThat(slice).isNotNegative();
        Optional<JsonNode> value = Json.parse(new String(bytes, TopLevelField.start(slice),
                TopLevelField.end(slice) - TopLevelField.start(slice), StandardCharsets.UTF_8));
        assertThat(value).contains(tree.get("usage"));
    }

    @Property(tries = 2000)
    void neverDecidesForABodyCutShort(@ForAll("objects") String json, @ForAll int cut) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        int at = Math.floorMod(cut, bytes.length);
        byte[] truncated = java.util.Arrays.copyOf(bytes, at);
        if (Json.parse(truncated).isEmpty()) {
            assertThat(TopLevelField.find(truncated, USAGE)).isEqualTo(TopLevelField.UNDECIDED);
        }
    }
}
