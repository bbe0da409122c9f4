package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The client's body goes upstream byte for byte, with only its top-level model replaced, or not at all. */
class VerbatimBodyTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Optional<String> withModel(String body, String model) {
        return VerbatimBody.withModel(utf8(body), model).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    @Test
    void onlyTheModelValueChangesAndEveryOtherByteStays() {
        String body = "{ \"model\" : \"fast-chat\",\n  \"temperature\": 1.0e0, \"messages\":[{\"role\":\"user\","
                + "\"content\":\"caf\\u00e9 \\\"model\\\": x\"}] }";

        assertThat(withModel(body, "gpt-4o-mini")).contains(body.replace("\"fast-chat\"", "\"gpt-4o-mini\""));
    }

    @Test
    void aNestedModelKeyIsLeftAloneEvenWhenItComesFirst() {
        String body = "{\"metadata\":{\"model\":\"fast-chat\"},\"tools\":[{\"model\":\"x\"}],\"model\":\"fast-chat\"}";

        assertThat(withModel(body, "gpt-4o")).contains(
                "{\"metadata\":{\"model\":\"fast-chat\"},\"tools\":[{\"model\":\"x\"}],\"model\":\"gpt-4o\"}");
    }

    @Test
    void aBodyThatAlreadyNamesTheModelIsForwardedAsItIs() {
        byte[] body = utf8("{\"model\":\"gpt-4o\",\"stream\":false}");

        assertThat(VerbatimBody.withModel(body, "gpt-4o")).containsSame(body);
    }

    @Test
    void aRepeatedTopLevelKeyMakesTheTreeGoInstead() {
        // Sluice reads the last "model" (and "stream"); a provider might read the first.
        assertThat(withModel("{\"model\":\"cheap\",\"model\":\"costly\"}", "m")).isEmpty();
        assertThat(withModel("{\"model\":\"a\",\"stream\":true,\"stream\":false}", "m")).isEmpty();
        assertThat(VerbatimBody.unchanged(utf8("{\"contents\":[],\"contents\":[1]}"))).isEmpty();
    }

    @Test
    void anEscapedTopLevelKeyMakesTheTreeGoInstead() {
        assertThat(withModel("{\"mod\\u0065l\":\"a\",\"model\":\"b\"}", "m")).isEmpty();
        assertThat(withModel("{\"x\\\"model\":1,\"model\":\"b\"}", "m")).isEmpty();
    }

    @Test
    void aModelThatIsNotAStringOrIsMissingMakesTheTreeGoInstead() {
        assertThat(withModel("{\"model\":7}", "m")).isEmpty();
        assertThat(withModel("{\"messages\":[]}", "m")).isEmpty();
    }

    @Test
    void theNewModelIsWrittenAsAJsonString() {
        Optional<String> out = withModel("{\"model\":\"a\"}", "we\"ird\\model é");

        assertThat(ProxyJson.parse(utf8(out.orElseThrow())).orElseThrow().path("model").asText())
                .isEqualTo("we\"ird\\model é");
    }

    @Test
    void aBodyWithTrailingContentIsNotJson() {
        assertThat(ProxyJson.parse(utf8("{\"model\":\"a\"} {\"model\":\"b\"}"))).isEmpty();
        assertThat(ProxyJson.parse(utf8("{\"model\":\"a\"}\n"))).isPresent();
    }

    @Property(tries = 300)
    void whatGoesUpstreamReadsAsTheTreeWithTheModelReplaced(@ForAll @Size(max = 6) Map<String, String> fields,
            @ForAll String nestedModel, @ForAll String model, @ForAll String alias) {
        ObjectNode tree = ProxyJson.MAPPER.createObjectNode();
        fields.forEach((k, v) -> {
            if (!k.equals("model")) {
                tree.put(k, v);
            }
        });
        tree.putObject("metadata").put("model", nestedModel);
        tree.put("model", alias);
        byte[] raw = ProxyJson.bytes(tree);

        Optional<byte[]> out = VerbatimBody.withModel(raw, model);

        ObjectNode expected = tree.deepCopy().put("model", model);
        // Jackson escapes nothing in keys that needs escaping here except control characters and quotes.
        boolean escapedKey = fields.keySet().stream().anyMatch(k -> new String(ProxyJson.bytes(
                ProxyJson.MAPPER.getNodeFactory().textNode(k)), StandardCharsets.UTF_8).contains("\\"));
        if (escapedKey) {
            assertThat(out).isEmpty();
        } else {
            JsonNode sent = ProxyJson.parse(out.orElseThrow()).orElseThrow();
            assertThat(sent).isEqualTo(expected);
        }
    }
}
