package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The streaming read of a passing OpenAI chunk finds what a tree would. */
class OpenAiChunkScanTest {

    static Stream<String> chunks() {
        return Stream.of(
                "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello \\u00e9 \\ud83d\\ude00\"},\"logprobs\":{\"content\":[{\"token\":\"x\",\"bytes\":[1,2]}]}}]}",
                "{\"choices\":[{\"delta\":{\"refusal\":\"no\"}},{\"delta\":{\"content\":\"two choices\"}}]}",
                "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"t\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}}]}}]}",
                "{\"choices\":[{\"text\":\"legacy completion\",\"index\":0,\"finish_reason\":\"length\"}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}",
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":4}}}",
                "{\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3},\"choices\":[{\"delta\":{\"content\":\"with usage\"}}]}",
                "{\"choices\":\"not an array\",\"usage\":12}",
                "{\"choices\":[1,[2],{\"delta\":\"not an object\",\"finish_reason\":7}]}",
                "{\"nested\":{\"choices\":[{\"delta\":{\"content\":\"ignored\"}}],\"usage\":{\"prompt_tokens\":1}}}",
                "[1,2,3]",
                "\"just a string\"",
                "42");
    }

    @ParameterizedTest
    @MethodSource("chunks")
    void findsWhatATreeWould(String data) {
        JsonNode tree = Json.parse(data).orElseThrow();
        OpenAiChunkScan scan = scan(data).orElseThrow();

        boolean finish = false;
        for (JsonNode choice : tree.path("choices")) {
            finish |= choice.path("finish_reason").isTextual();
        }
        assertThat(scan.finishReason()).isEqualTo(finish);
        assertThat(scan.usageOnly()).isEqualTo(OpenAiChunks.isUsageOnlyChunk(tree));
        assertThat(scan.usage().map(u -> u.openAi(true)))
                .isEqualTo(UsageExtractor.openAi(tree.path("usage"), true));
        assertThat(scan.responsesEvent()).isFalse();

        StreamUsageTracker byTree = StreamUsageTracker.of(WireFormat.OPENAI);
        byTree.observe(SseEvent.DEFAULT_EVENT, tree);
        StreamUsageTracker byScan = StreamUsageTracker.of(WireFormat.OPENAI);
        byScan.observeOpenAiChunk(scan.textChars(), scan.usage());
        assertThat(byScan.usage()).isEqualTo(byTree.usage());
        assertThat(byScan.estimatedOutputTokensFromText()).isEqualTo(byTree.estimatedOutputTokensFromText());
    }

    @org.junit.jupiter.api.Test
    void countsCodePointsNotChars() {
        assertThat(scan("{\"choices\":[{\"delta\":{\"content\":\"\\ud83d\\ude00\\ud83d\\ude00ab\"}}]}")
                .orElseThrow().textChars()).isEqualTo(4);
    }

    @org.junit.jupiter.api.Test
    void readsRawUtf8TextAsCodePoints() {
        assertThat(scan("{\"choices\":[{\"delta\":{\"content\":\"\u00e9\ud83d\ude00\u4e2dab\"}}]}").orElseThrow().textChars())
                .isEqualTo(5);
    }

    @org.junit.jupiter.api.Test
    void aResponsesEventIsLeftToTheTree() {
        assertThat(scan("{\"type\":\"response.output_text.delta\",\"delta\":\"x\"}").orElseThrow()
                .responsesEvent()).isTrue();
    }

    @org.junit.jupiter.api.Test
    void dataThatIsNotJsonIsNothing() {
        assertThat(scan("{\"choices\":[")).isEmpty();
        assertThat(scan("")).isEmpty();
        assertThat(scan("not json")).isEmpty();
    }

    /** Scans {@code data} from the middle of a larger array, as the stream relay hands it over. */
    private static java.util.Optional<OpenAiChunkScan> scan(String data) {
        byte[] text = data.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] framed = new byte[text.length + 12];
        java.util.Arrays.fill(framed, (byte) '}');
        System.arraycopy(text, 0, framed, 6, text.length);
        return OpenAiChunkScan.of(framed, 6, text.length);
    }
}
