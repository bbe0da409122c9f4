package dev.sluice.signal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {

    private static final String GEMINI = """
            {"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[
             {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"26s"}]}}""";

    @Test
    void navigatesObjectsAndArrays() {
        JsonValue root = Json.parse(GEMINI).orElseThrow();
        assertThat(root.get("error").get("code").scalarText()).hasValue("429");
        assertThat(root.get("error").get("status").string()).hasValue("RESOURCE_EXHAUSTED");
        assertThat(root.get("error").get("details").items().get(0).get("retryDelay").string()).hasValue("26s");
    }

    @Test
    void navigationIntoMissingOrWrongTypesIsTotal() {
        JsonValue root = Json.parse("{\"a\":[1,2],\"s\":\"x\"}").orElseThrow();
        assertThat(root.get("missing").get("deeper").string()).isEmpty();
        assertThat(root.get("s").items()).isEmpty();
        assertThat(root.get("a").get("x")).isEqualTo(JsonValue.JNull.INSTANCE);
        assertThat(root.get("a").string()).isEmpty();
    }

    @Test
    void decodesEscapes() {
        JsonValue value = Json.parse("\"a\\\"b\\\\c\\/d\\n\\u00b5\\t\"").orElseThrow();
        assertThat(value.string()).hasValue("a\"b\\c/d\nµ\t");
    }

    @Test
    void scalarTextReadsStringsAndWholeNumbersOnly() {
        assertThat(Json.parse("429").orElseThrow().scalarText()).hasValue("429");
        assertThat(Json.parse("\"429\"").orElseThrow().scalarText()).hasValue("429");
        assertThat(Json.parse("-3").orElseThrow().scalarText()).hasValue("-3");
        assertThat(Json.parse("4.5").orElseThrow().scalarText()).isEmpty();
        assertThat(Json.parse("1e400").orElseThrow().scalarText()).isEmpty();
        assertThat(Json.parse("true").orElseThrow().scalarText()).isEmpty();
    }

    @Test
    void firstOccurrenceOfARepeatedKeyWins() {
        assertThat(Json.parse("{\"k\":1,\"k\":2}").orElseThrow().get("k").scalarText()).hasValue("1");
    }

    @Test
    void acceptsAByteOrderMarkAndSurroundingWhitespace() {
        assertThat(Json.parse("\ufeff \n{\"a\":[]} \t")).isPresent();
    }

    @ParameterizedTest(name = "rejects [{0}]")
    @ValueSource(strings = {
        "", " ", "{", "[", "{\"a\":1", "{\"a\":1,}", "[1,]", "[1 2]", "{\"a\" 1}", "{a:1}", "'a'",
        "NaN", "Infinity", "-Infinity", "{\"a\":NaN}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul",
        "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"tab\tinside\"", "{} {}", "[] x",
        "{\"error\":{\"message\":\"Rate limit reached"
    })
    void rejectsInvalidJson(String text) {
        assertThat(Json.parse(text)).isEmpty();
    }

    @Test
    void depthIsCapped() {
        String ok = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);
        String deep = "[".repeat(Json.MAX_DEPTH + 1) + "]".repeat(Json.MAX_DEPTH + 1);
        assertThat(Json.parse(ok)).isPresent();
        assertThat(Json.parse(deep)).isEmpty();
        assertThat(Json.parse("[".repeat(100_000))).isEmpty();
        assertThat(Json.parse("{\"a\":".repeat(10_000))).isEmpty();
    }

    @Test
    void lengthIsCapped() {
        String padded = "\"" + "x".repeat(Json.MAX_LENGTH - 2) + "\"";
        assertThat(Json.parse(padded)).isPresent();
        assertThat(Json.parse(padded + " ")).isEmpty();
    }

    @Property
    void neverThrows(@ForAll String text) {
        assertThat(Json.parse(text)).isNotNull();
    }

    @Property
    void everyProperPrefixOfAnObjectIsRejected(@ForAll @IntRange(min = 0, max = 200) int cut) {
        String full = GEMINI;
        String prefix = full.substring(0, Math.min(cut, full.length() - 1));
        assertThat(Json.parse(prefix)).isEmpty();
    }

    @Property
    void arraysKeepTheirOrder(@ForAll List<@IntRange(min = -1000, max = 1000) Integer> numbers) {
        String text = numbers.toString();
        List<String> parsed = Json.parse(text).orElseThrow().items().stream()
                .map(v -> v.scalarText().orElseThrow())
                .toList();
        assertThat(parsed).containsExactlyElementsOf(numbers.stream().map(String::valueOf).toList());
    }
}
