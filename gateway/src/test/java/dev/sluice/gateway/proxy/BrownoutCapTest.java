package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.http.Operation;
import dev.sluice.gateway.translate.WireFormat;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BrownoutCapTest {

    static UpstreamPlan plan(WireFormat format, String body) {
        ObjectNode json = (ObjectNode) ProxyJson.parse(body.getBytes(StandardCharsets.UTF_8)).orElseThrow();
        return new UpstreamPlan("/x", json, format, UpstreamPlan.Translation.NATIVE, false, false);
    }

    @Test
    void openAiChatCeilingIsLoweredAndSmallerOnesAreKept() {
        UpstreamPlan big = plan(WireFormat.OPENAI, "{\"max_completion_tokens\":4000}");
        big.capOutput(Operation.OPENAI_CHAT, 512);
        assertThat(big.body().path("max_completion_tokens").asInt()).isEqualTo(512);
        UpstreamPlan small = plan(WireFormat.OPENAI, "{\"max_tokens\":100}");
        small.capOutput(Operation.OPENAI_CHAT, 512);
        assertThat(small.body().path("max_tokens").asInt()).isEqualTo(100);
    }

    @Test
    void aMissingCeilingIsAddedInEachFormat() {
        UpstreamPlan responses = plan(WireFormat.OPENAI, "{}");
        responses.capOutput(Operation.OPENAI_RESPONSES, 512);
        assertThat(responses.body().path("max_output_tokens").asInt()).isEqualTo(512);
        UpstreamPlan gemini = plan(WireFormat.GEMINI, "{\"contents\":[]}");
        gemini.capOutput(Operation.GEMINI_GENERATE, 512);
        assertThat(gemini.body().path("generationConfig").path("maxOutputTokens").asInt()).isEqualTo(512);
        UpstreamPlan anthropic = plan(WireFormat.ANTHROPIC, "{\"max_tokens\":9000}");
        anthropic.capOutput(Operation.ANTHROPIC_MESSAGES, 512);
        assertThat(anthropic.body().path("max_tokens").asInt()).isEqualTo(512);
    }

    @Test
    void embeddingsHaveNoOutputToCap() {
        UpstreamPlan e = plan(WireFormat.OPENAI, "{\"input\":\"x\"}");
        e.capOutput(Operation.OPENAI_EMBEDDINGS, 512);
        assertThat(e.body().has("max_tokens")).isFalse();
    }
}
