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
        OpenAiChunkScan scan = OpenAiChunkScan.of(data).orElseThrow();

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
        assertThat(OpenAiChunkScan.of("{\"choices\":[{\"delta\":{\"content\":\"\\ud83d\\ude00\\ud83d\\ude00ab\"}}]}")
                .orElseThrow().textChars()).isEqualTo(4);
    }

    @org.junit.jupiter.api.Test
    void aResponsesEventIsLeftToTheTree() {
        assertThat(OpenAiChunkScan.of("{\"type\":\"response.output_text.delta\",\"delta\":\"x\"}").orElseThrow()
                .responsesEvent()).isTrue();
    }

    @org.junit.jupiter.api.Test
    void dataThatIsNotJsonIsNothing() {
        assertThat(OpenAiChunkScan.of("{\"choices\":[")).isEmpty();
        assertThat(OpenAiChunkScan.of("")).isEmpty();
        assertThat(OpenAiChunkScan.of("not json")).isEmpty();
    }
}
