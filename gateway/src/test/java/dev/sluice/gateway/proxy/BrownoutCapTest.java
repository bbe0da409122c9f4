package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.http.Operation;
import dev.sluice.gateway.translate.WireFormat;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** In brownout a request's output ceiling becomes half of what it asked for (the adaptive default factor). */
class BrownoutCapTest {

    /** A plan that would forward the client's bytes as they are. */
    static UpstreamPlan plan(WireFormat format, String body) {
        byte[] raw = body.getBytes(StandardCharsets.UTF_8);
        ObjectNode json = (ObjectNode) ProxyJson.parse(raw).orElseThrow();
        return new UpstreamPlan("/x", json, Optional.of(raw), format, UpstreamPlan.Translation.NATIVE, false, false);
    }

    /** What goes upstream. */
    static JsonNode sent(UpstreamPlan plan) {
        return ProxyJson.parse(plan.bytes()).orElseThrow();
    }

    @Test
    void openAiChatCeilingsAreHalved() {
        UpstreamPlan big = plan(WireFormat.OPENAI, "{\"max_completion_tokens\":4000}")
                .capOutput(Operation.OPENAI_CHAT, 0.5, 999);
        assertThat(sent(big).path("max_completion_tokens").asInt()).isEqualTo(2000);
        UpstreamPlan small = plan(WireFormat.OPENAI, "{\"max_tokens\":101}").capOutput(Operation.OPENAI_CHAT, 0.5, 999);
        assertThat(sent(small).path("max_tokens").asInt()).isEqualTo(50);
        UpstreamPlan one = plan(WireFormat.OPENAI, "{\"max_tokens\":1}").capOutput(Operation.OPENAI_CHAT, 0.5, 999);
        assertThat(sent(one).path("max_tokens").asInt()).as("never below one token").isEqualTo(1);
    }

    @Test
    void aMissingCeilingBecomesHalfOfWhatWasReservedInEachFormat() {
        UpstreamPlan responses = plan(WireFormat.OPENAI, "{}").capOutput(Operation.OPENAI_RESPONSES, 0.5, 1024);
        assertThat(sent(responses).path("max_output_tokens").asInt()).isEqualTo(512);
        UpstreamPlan gemini = plan(WireFormat.GEMINI, "{\"contents\":[]}").capOutput(Operation.GEMINI_GENERATE, 0.5, 1024);
        assertThat(sent(gemini).path("generationConfig").path("maxOutputTokens").asInt()).isEqualTo(512);
        UpstreamPlan anthropic = plan(WireFormat.ANTHROPIC, "{\"max_tokens\":9000}")
                .capOutput(Operation.ANTHROPIC_MESSAGES, 0.5, 1024);
        assertThat(sent(anthropic).path("max_tokens").asInt()).isEqualTo(4500);
    }

    @Test
    void embeddingsHaveNoOutputToCapAndGoAsTheyCame() {
        UpstreamPlan e = plan(WireFormat.OPENAI, "{\"input\":\"x\"}").capOutput(Operation.OPENAI_EMBEDDINGS, 0.5, 1024);
        assertThat(e.bytes()).asString(StandardCharsets.UTF_8).isEqualTo("{\"input\":\"x\"}");
    }
}
