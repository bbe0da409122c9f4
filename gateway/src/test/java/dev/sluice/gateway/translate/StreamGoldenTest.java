package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden files in translate/streams/: an upstream byte stream (.sse) and, in the .json beside it,
 * the downstream events, the settled usage and whether the stream completed.
 */
class StreamGoldenTest {

    static List<String> cases() {
        return Fixtures.names("streams", "json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void convertsTheWholeStream(String name) {
        JsonNode spec = spec(name);
        ChatStreamConverter converter = converter(spec);
        List<String> out = new ArrayList<>(Fixtures.wire(converter.feed(upstream(name))));
        out.addAll(Fixtures.wire(converter.finish()));

        assertThat(Fixtures.events(out)).containsExactlyElementsOf(spec.path("downstream"));
        assertThat(converter.usage().usage()).isEqualTo(Fixtures.usage(spec.path("usage")));
        assertThat(converter.completed()).isEqualTo(spec.path("completed").asBoolean());
        assertThat(converter.closed()).isTrue();
        assertThat(Fixtures.wire(converter.feed(upstream(name)))).isEmpty();
        assertThat(Fixtures.wire(converter.finish())).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aStandaloneTrackerSeesTheSameUsage(String name) {
        JsonNode spec = spec(name);
        StreamUsageTracker tracker = StreamUsageTracker.of(format(spec));
        tracker.feed(upstream(name));
        assertThat(tracker.usage()).isEqualTo(Fixtures.usage(spec.path("usage")));
        assertThat(tracker.finalUsageSeen()).isEqualTo(spec.path("usage").path("reportedByProvider").asBoolean());
    }

    static JsonNode spec(String name) {
        return Fixtures.json("streams/" + name + ".json");
    }

    static byte[] upstream(String name) {
        return Fixtures.bytes("streams/" + name + ".sse");
    }

    static WireFormat format(JsonNode spec) {
        return WireFormat.valueOf(spec.path("format").textValue().toUpperCase(java.util.Locale.ROOT));
    }

    static ChatStreamConverter converter(JsonNode spec) {
        boolean includeUsage = spec.path("includeUsage").asBoolean();
        return switch (format(spec)) {
            case ANTHROPIC -> ChatStreams.fromAnthropic(Fixtures.META, includeUsage);
            case GEMINI -> ChatStreams.fromGemini(Fixtures.META, includeUsage);
            case OPENAI -> ChatStreams.fromOpenAi(spec.path("forwardUsageChunk").asBoolean());
        };
    }
}
