package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OpenAiChunksTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "{\"choices\":[],\"usage\":{\"prompt_tokens\":1}}                              | true",
        "{\"choices\":[{\"index\":0,\"delta\":{}}],\"usage\":{\"prompt_tokens\":1}}    | false",
        "{\"choices\":[],\"usage\":null}                                               | false",
        "{\"choices\":[],\"prompt_filter_results\":[]}                                 | false",
        "{\"usage\":{\"prompt_tokens\":1}}                                             | false",
        "[DONE]                                                                        | false",
    })
    void recognisesTheExtraUsageChunk(String data, boolean usageOnly) {
        assertThat(OpenAiChunks.isUsageOnlyChunk(data)).isEqualTo(usageOnly);
    }

    @Test
    void requestsUsageOnlyWhenIncludeUsageIsTrue() {
        assertThat(OpenAiChunks.requestsUsage(Fixtures.parse("{\"stream_options\":{\"include_usage\":true}}"))).isTrue();
        assertThat(OpenAiChunks.requestsUsage(Fixtures.parse("{\"stream_options\":{\"include_usage\":false}}"))).isFalse();
        assertThat(OpenAiChunks.requestsUsage(Fixtures.parse("{\"stream\":true}"))).isFalse();
    }

    @Test
    void withUsageRequestedKeepsOtherOptionsAndLeavesTheInputAlone() {
        ObjectNode request = (ObjectNode) Fixtures.parse("{\"stream\":true,\"stream_options\":{\"include_obfuscation\":false}}");
        ObjectNode changed = OpenAiChunks.withUsageRequested(request);
        assertThat(changed).isEqualTo(Fixtures.parse(
                "{\"stream\":true,\"stream_options\":{\"include_obfuscation\":false,\"include_usage\":true}}"));
        assertThat(request).isEqualTo(Fixtures.parse("{\"stream\":true,\"stream_options\":{\"include_obfuscation\":false}}"));
        assertThat(OpenAiChunks.withUsageRequested((ObjectNode) Fixtures.parse("{\"stream\":true}")))
                .isEqualTo(Fixtures.parse("{\"stream\":true,\"stream_options\":{\"include_usage\":true}}"));
    }

    @Test
    void passthroughKeepsEventTextVerbatimAndEventNames() {
        String upstream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}],  \"x\":1}\n\n"
                + "event: custom\ndata: {\"choices\":[{\"index\":0,\"finish_reason\":\"stop\",\"delta\":{}}]}\n\n"
                + "data: [DONE]\n\n";
        ChatStreamConverter c = ChatStreams.fromOpenAi(false);
        List<String> out = new ArrayList<>(Fixtures.wire(c.feed(upstream.getBytes(StandardCharsets.UTF_8))));
        out.addAll(Fixtures.wire(c.finish()));
        assertThat(String.join("", out)).isEqualTo(upstream);
        assertThat(c.completed()).isTrue();
    }

    @Test
    void passthroughWithoutDoneButWithAFinishReasonIsClosedNormally() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        c.feed("data: {\"choices\":[{\"index\":0,\"finish_reason\":\"stop\",\"delta\":{}}]}\n\n".getBytes(StandardCharsets.UTF_8));
        assertThat(Fixtures.wire(c.finish())).containsExactly("data: [DONE]\n\n");
        assertThat(c.completed()).isTrue();
    }
}
