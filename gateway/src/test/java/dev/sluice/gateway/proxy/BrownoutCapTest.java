package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.http.Operation;
import dev.sluice.gateway.translate.WireFormat;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** In brownout a request's output ceiling becomes half of what it asked for (the adaptive default factor). */
class BrownoutCapTest {

    static UpstreamPlan plan(WireFormat format, String body) {
        ObjectNode json = (ObjectNode) ProxyJson.parse(body.getBytes(StandardCharsets.UTF_8)).orElseThrow();
        return new UpstreamPlan("/x", json, format, UpstreamPlan.Translation.NATIVE, false, false);
    }

    @Test
    void openAiChatCeilingsAreHalved() {
        UpstreamPlan big = plan(WireFormat.OPENAI, "{\"max_completion_tokens\":4000}");
        big.capOutput(Operation.OPENAI_CHAT, 0.5, 999);
        assertThat(big.body().path("max_completion_tokens").asInt()).isEqualTo(2000);
        UpstreamPlan small = plan(WireFormat.OPENAI, "{\"max_tokens\":101}");
        small.capOutput(Operation.OPENAI_CHAT, 0.5, 999);
        assertThat(small.body().path("max_tokens").asInt()).isEqualTo(50);
        UpstreamPlan one = plan(WireFormat.OPENAI, "{\"max_tokens\":1}");
        one.capOutput(Operation.OPENAI_CHAT, 0.5, 999);
        assertThat(one.body().path("max_tokens").asInt()).as("never below one token").isEqualTo(1);
    }

    @Test
    void aMissingCeilingBecomesHalfOfWhatWasReservedInEachFormat() {
        UpstreamPlan responses = plan(WireFormat.OPENAI, "{}");
        responses.capOutput(Operation.OPENAI_RESPONSES, 0.5, 1024);
        assertThat(responses.body().path("max_output_tokens").asInt()).isEqualTo(512);
        UpstreamPlan gemini = plan(WireFormat.GEMINI, "{\"contents\":[]}");
        gemini.capOutput(Operation.GEMINI_GENERATE, 0.5, 1024);
        assertThat(gemini.body().path("generationConfig").path("maxOutputTokens").asInt()).isEqualTo(512);
        UpstreamPlan anthropic = plan(WireFormat.ANTHROPIC, "{\"max_tokens\":9000}");
        anthropic.capOutput(Operation.ANTHROPIC_MESSAGES, 0.5, 1024);
        assertThat(anthropic.body().path("max_tokens").asInt()).isEqualTo(4500);
    }

    @Test
    void embeddingsHaveNoOutputToCap() {
        UpstreamPlan e = plan(WireFormat.OPENAI, "{\"input\":\"x\"}");
        e.capOutput(Operation.OPENAI_EMBEDDINGS, 0.5, 1024);
        assertThat(e.body().has("max_tokens")).isFalse();
    }
}
