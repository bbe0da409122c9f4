package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.estimate.MessagePart;
import dev.sluice.estimate.PromptShape;
import dev.sluice.gateway.http.Operation;
import org.junit.jupiter.api.Test;

class PromptShapesTest {

    static JsonNode json(String s) {
        return ProxyJson.parse(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)).orElseThrow();
    }

    @Test
    void openAiChatReadsMessagesToolsImagesAndMaxTokens() {
        PromptShape p = PromptShapes.of(Operation.OPENAI_CHAT, json("""
                {"messages":[{"role":"system","content":"Be brief."},
                  {"role":"user","name":"ann","content":[{"type":"text","text":"Look"},
                    {"type":"image_url","image_url":{"url":"x","detail":"low"}}]},
                  {"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{\\"a\\":1}"}}]}],
                 "tools":[{"type":"function","function":{"name":"f"}}],"max_completion_tokens":77}"""));
        assertThat(p.messages()).extracting(MessagePart::role).containsExactly("system", "user", "assistant");
        assertThat(p.messages().get(1).name()).contains("ann");
        assertThat(p.messages().get(2).text()).contains("{\"a\":1}");
        assertThat(p.imageCountLow()).isEqualTo(1);
        assertThat(p.toolDefinitionsJson()).hasSize(1);
        assertThat(p.maxOutputTokens()).hasValue(77);
    }

    @Test
    void everyNumberOfTheParametersMustFitA32BitIntegerHoweverItIsWritten() {
        String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],%s}";
        for (String field : new String[] {"\"max_tokens\":3000000000", "\"max_tokens\":3e9", "\"max_tokens\":1e400",
                "\"n\":-2147483649", "\"seed\":99999999999999999999"}) {
            assertThatThrownBy(() -> PromptShapes.of(Operation.OPENAI_CHAT, json(chat.formatted(field))))
                    .as(field).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("outside the 32-bit integers");
        }
        assertThatThrownBy(() -> PromptShapes.of(Operation.GEMINI_GENERATE, json("""
                {"contents":[{"role":"user","parts":[{"text":"Hi"}]}],
                 "generationConfig":{"thinkingConfig":{"thinkingBudget":4294967296}}}""")))
                .hasMessageStartingWith("generationConfig.thinkingConfig.thinkingBudget is 4294967296");
    }

    @Test
    void aWholeMaxTokensWrittenAsADecimalIsReservedAndSchemasMayHoldAnyNumber() {
        PromptShape p = PromptShapes.of(Operation.OPENAI_CHAT, json("""
                {"messages":[{"role":"user","content":"Hi"}],"max_tokens":1e3,
                 "tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object",
                   "properties":{"id":{"type":"integer","maximum":9007199254740991}}}}}]}"""));
        assertThat(p.maxOutputTokens()).hasValue(1_000);
    }

    @Test
    void anthropicReadsTheSystemPromptAndBlocks() {
        PromptShape p = PromptShapes.of(Operation.ANTHROPIC_MESSAGES, json("""
                {"system":[{"type":"text","text":"Sys"}],"max_tokens":9,
                 "messages":[{"role":"user","content":[{"type":"text","text":"Hi"},{"type":"image","source":{}}]}]}"""));
        assertThat(p.messages().get(0)).isEqualTo(MessagePart.of("system", "Sys"));
        assertThat(p.messages().get(1).text()).isEqualTo("Hi");
        assertThat(p.imageCountHigh()).isEqualTo(1);
        assertThat(p.maxOutputTokens()).hasValue(9);
    }

    @Test
    void geminiReadsContentsAndGenerationConfig() {
        PromptShape p = PromptShapes.of(Operation.GEMINI_GENERATE, json("""
                {"systemInstruction":{"parts":[{"text":"Sys"}]},"contents":[{"role":"user","parts":[{"text":"Hi"}]}],
                 "generationConfig":{"maxOutputTokens":12}}"""));
        assertThat(p.messages()).extracting(MessagePart::text).containsExactly("Sys", "Hi");
        assertThat(p.maxOutputTokens()).hasValue(12);
    }

    @Test
    void responsesCountFunctionCallsAndTheirOutputs() {
        PromptShape p = PromptShapes.of(Operation.OPENAI_RESPONSES, json("""
                {"instructions":"Sys","max_output_tokens":5,"input":[{"role":"user","content":"Hi"},
                  {"type":"function_call","call_id":"c","name":"get_weather","arguments":"{\\"city\\":\\"x\\"}"},
                  {"type":"function_call_output","call_id":"c","output":"sunny"}]}"""));
        assertThat(p.messages()).extracting(MessagePart::role).containsExactly("system", "user", "assistant", "tool");
        assertThat(p.messages().get(2).text()).contains("get_weather").contains("city");
        assertThat(p.messages().get(3).text()).isEqualTo("sunny");
        assertThat(p.maxOutputTokens()).hasValue(5);
    }

    @Test
    void geminiEmbeddingsReadEveryContentAndReserveNoOutput() {
        PromptShape one = PromptShapes.of(Operation.GEMINI_EMBED, json("{\"content\":{\"parts\":[{\"text\":\"Hi\"}]}}"));
        assertThat(one.messages()).extracting(MessagePart::text).containsExactly("Hi");
        PromptShape batch = PromptShapes.of(Operation.GEMINI_BATCH_EMBED, json(
                "{\"requests\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}},{\"content\":{\"parts\":[{\"text\":\"b\"}]}}]}"));
        assertThat(batch.messages()).extracting(MessagePart::text).containsExactly("a", "b");
        assertThat(batch.maxOutputTokens()).hasValue(0);
    }

    @Test
    void embeddingsReserveNoOutput() {
        PromptShape p = PromptShapes.of(Operation.OPENAI_EMBEDDINGS, json("{\"input\":[\"a\",\"b\"]}"));
        assertThat(p.messages()).hasSize(2);
        assertThat(p.maxOutputTokens()).hasValue(0);
    }
}
