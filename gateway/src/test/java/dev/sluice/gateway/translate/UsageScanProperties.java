package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
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
 * Reading usage token by token gives what reading the parsed tree by the documented rules gives,
 * for any usage object: known and unknown fields, counts that are negative, fractional, huge,
 * null, strings or objects, details that are not objects, and repeated keys, anywhere in the
 * answer. The oracle below is the rule written plainly on a tree.
 */
class UsageScanProperties {

    private static final List<String> FIELDS = List.of("prompt_tokens", "completion_tokens", "total_tokens",
            "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
            "promptTokenCount", "toolUsePromptTokenCount", "cachedContentTokenCount", "candidatesTokenCount",
            "thoughtsTokenCount", "service_tier");
    private static final List<String> DETAILS = List.of("prompt_tokens_details", "input_tokens_details",
            "completion_tokens_details");

    @Provide
    Arbitrary<String> values() {
        return Arbitraries.oneOf(
                Arbitraries.longs().between(-5, 5_000_000).map(v -> Long.toString(v)),
                Arbitraries.of("null", "\"12\"", "true", "12.7", "1e3", "-0.5", "[1,2]", "{\"a\":1}",
                        "123456789012345678901234567890"));
    }

    @Provide
    Arbitrary<String> members() {
        Arbitrary<String> plain = Combinators.combine(Arbitraries.of(FIELDS), values())
                .as((k, v) -> "\"" + k + "\":" + v);
        Arbitrary<String> inner = Combinators.combine(Arbitraries.of("cached_tokens", "cache_write_tokens", "audio_tokens"),
                values()).as((k, v) -> "\"" + k + "\":" + v).list().ofMaxSize(4).map(l -> "{" + String.join(",", l) + "}");
        Arbitrary<String> details = Combinators.combine(Arbitraries.of(DETAILS),
                Arbitraries.oneOf(inner, values())).as((k, v) -> "\"" + k + "\":" + v);
        return Arbitraries.oneOf(plain, plain, details);
    }

    @Provide
    Arbitrary<String> usageObjects() {
        return members().list().ofMaxSize(12).map(l -> "{" + String.join(",", l) + "}");
    }

    @Property(tries = 1000)
    void scanningReadsWhatTheTreeSays(@ForAll("usageObjects") String usage, @ForAll("usageObjects") String earlier,
            @ForAll boolean repeated, @ForAll("formats") WireFormat format) {
        String key = format == WireFormat.GEMINI ? "usageMetadata" : "usage";
        String body = "{\"id\":\"x\",\"choices\":[{\"message\":{\"" + key + "\":" + earlier + "}}],"
                + (repeated ? "\"" + key + "\":" + earlier + "," : "") + "\"" + key + "\":" + usage + ",\"model\":\"m\"}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        JsonNode tree = Json.parse(bytes).orElseThrow();

        assertThat(UsageExtractor.scan(format, bytes)).isEqualTo(oracle(format, tree.path(key)));
        assertThat(UsageExtractor.extract(format, bytes)).isEqualTo(oracle(format, tree.path(key)));
    }

    @Provide
    Arbitrary<WireFormat> formats() {
        return Arbitraries.of(WireFormat.class);
    }

    private static Optional<ObservedUsage> oracle(WireFormat format, JsonNode u) {
        if (!u.isObject()) {
            return Optional.empty();
        }
        return Optional.of(switch (format) {
            case OPENAI -> {
                boolean responses = u.has("input_tokens") && !u.has("prompt_tokens");
                long prompt = count(u, responses ? "input_tokens" : "prompt_tokens");
                long output = count(u, responses ? "output_tokens" : "completion_tokens");
                JsonNode details = u.path(responses ? "input_tokens_details" : "prompt_tokens_details");
                long cached = Math.min(prompt, count(details, "cached_tokens"));
                long written = Math.min(prompt - cached, count(details, "cache_write_tokens"));
                yield new ObservedUsage(prompt - cached, output, cached, written, true);
            }
            case ANTHROPIC -> {
                long written = count(u, "cache_creation_input_tokens");
                yield new ObservedUsage(count(u, "input_tokens") + written, count(u, "output_tokens"),
                        count(u, "cache_read_input_tokens"), written, true);
            }
            case GEMINI -> {
                long prompt = count(u, "promptTokenCount") + count(u, "toolUsePromptTokenCount");
                long cached = Math.min(prompt, count(u, "cachedContentTokenCount"));
                yield new ObservedUsage(prompt - cached, count(u, "candidatesTokenCount") + count(u, "thoughtsTokenCount"),
                        cached, 0, true);
            }
        });
    }

    private static long count(JsonNode parent, String field) {
        JsonNode n = parent.path(field);
        return n.isNumber() ? Math.max(0, n.asLong()) : 0;
    }
}
