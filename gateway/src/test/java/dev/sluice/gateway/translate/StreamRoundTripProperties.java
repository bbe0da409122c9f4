package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Streaming and non-streaming translation agree: a generated provider answer, sent as an SSE
 * stream in arbitrary fragments and converted, assembles (as an SDK would) into the same content,
 * tool calls, finish reason and usage as the non-streaming translation of the same answer.
 */
class StreamRoundTripProperties {

    /** A content block: text, or a tool call with a small JSON input. */
    record Block(String text, String toolName, Map<String, Integer> input) {
        boolean isTool() {
            return !toolName.isEmpty();
        }
    }

    @Provide
    Arbitrary<String> texts() {
        // Printable ASCII, Latin letters, quotes, backslashes, newlines and (via '~') emoji.
        return Arbitraries.strings().withCharRange(' ', '~').withCharRange('À', 'ž').withChars('\n', '✓')
                .ofMaxLength(30).map(s -> s.replace("~", "🌍"));
    }

    @Provide
    Arbitrary<Block> blocks() {
        Arbitrary<Block> text = texts().map(t -> new Block(t, "", Map.of()));
        Arbitrary<Block> tool = Combinators.combine(
                Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(8),
                Arbitraries.maps(Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(5),
                        Arbitraries.integers().between(-1000, 1000)).ofMaxSize(3))
                .as((name, input) -> new Block("", name, input));
        return Arbitraries.oneOf(text, tool);
    }

    @Property(tries = 300)
    void anthropicStreamAssemblesToTheNonStreamingTranslation(
            @ForAll @Size(max = 4) List<@net.jqwik.api.From("blocks") Block> blocks,
            @ForAll("anthropicStops") String stopReason,
            @ForAll @IntRange(max = 10_000) int input, @ForAll @IntRange(max = 1_000) int cacheWrite,
            @ForAll @IntRange(max = 5_000) int cacheRead, @ForAll @IntRange(min = 1, max = 5_000) int output,
            @ForAll @IntRange(min = 1, max = 7) int fragment) {
        ObjectNode message = Fixtures.MAPPER.createObjectNode();
        message.put("id", "msg_x").put("type", "message").put("role", "assistant").put("stop_reason", stopReason);
        ArrayNode content = message.putArray("content");
        ObjectNode usage = message.putObject("usage");
        usage.put("input_tokens", input).put("cache_creation_input_tokens", cacheWrite)
                .put("cache_read_input_tokens", cacheRead).put("output_tokens", output);

        StringBuilder sse = new StringBuilder();
        event(sse, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_x\",\"content\":[],\"usage\":"
                + "{\"input_tokens\":" + input + ",\"cache_creation_input_tokens\":" + cacheWrite
                + ",\"cache_read_input_tokens\":" + cacheRead + ",\"output_tokens\":1}}}");
        for (int i = 0; i < blocks.size(); i++) {
            Block b = blocks.get(i);
            if (b.isTool()) {
                ObjectNode in = Fixtures.MAPPER.createObjectNode();
                b.input().forEach(in::put);
                content.addObject().put("type", "tool_use").put("id", "toolu_" + i).put("name", b.toolName()).set("input", in);
                event(sse, "content_block_start", "{\"type\":\"content_block_start\",\"index\":" + i
                        + ",\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_" + i + "\",\"name\":\"" + b.toolName()
                        + "\",\"input\":{}}}");
                for (String piece : fragments(write(in), fragment)) {
                    ObjectNode delta = Fixtures.MAPPER.createObjectNode();
                    delta.put("type", "content_block_delta").put("index", i);
                    delta.putObject("delta").put("type", "input_json_delta").put("partial_json", piece);
                    event(sse, "content_block_delta", write(delta));
                }
            } else {
                content.addObject().put("type", "text").put("text", b.text());
                event(sse, "content_block_start", "{\"type\":\"content_block_start\",\"index\":" + i
                        + ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
                for (String piece : fragments(b.text(), fragment)) {
                    ObjectNode delta = Fixtures.MAPPER.createObjectNode();
                    delta.put("type", "content_block_delta").put("index", i);
                    delta.putObject("delta").put("type", "text_delta").put("text", piece);
                    event(sse, "content_block_delta", write(delta));
                }
            }
            event(sse, "ping", "{\"type\":\"ping\"}");
            event(sse, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + i + "}");
        }
        event(sse, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason
                + "\"},\"usage\":{\"output_tokens\":" + output + "}}");
        event(sse, "message_stop", "{\"type\":\"message_stop\"}");

        ChatStreamConverter converter = ChatStreams.fromAnthropic(Fixtures.META, true);
        List<String> events = new ArrayList<>(Fixtures.wire(converter.feed(sse.toString().getBytes(StandardCharsets.UTF_8))));
        events.addAll(Fixtures.wire(converter.finish()));

        JsonNode expected = ChunkAssembler.view(Fixtures.normalize(AnthropicResponses.toChat(message, Fixtures.META)));
        assertThat(Fixtures.normalize(ChunkAssembler.assemble(events))).isEqualTo(expected);
        assertThat(converter.usage().usage())
                .isEqualTo(UsageExtractor.extract(WireFormat.ANTHROPIC, message).orElseThrow());
    }

    @Provide
    Arbitrary<String> anthropicStops() {
        return Arbitraries.of("end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn");
    }

    @Property(tries = 300)
    void geminiStreamAssemblesToTheNonStreamingTranslation(
            @ForAll @Size(min = 1, max = 4) List<@Size(max = 3) List<@net.jqwik.api.From("blocks") Block>> chunks,
            @ForAll("geminiReasons") String finishReason,
            @ForAll @IntRange(max = 10_000) int prompt, @ForAll @IntRange(max = 10_000) int cached,
            @ForAll @IntRange(max = 5_000) int candidates, @ForAll @IntRange(max = 5_000) int thoughts) {
        ObjectNode meta = Fixtures.MAPPER.createObjectNode();
        meta.put("promptTokenCount", prompt).put("cachedContentTokenCount", Math.min(prompt, cached))
                .put("candidatesTokenCount", candidates).put("thoughtsTokenCount", thoughts)
                .put("totalTokenCount", prompt + candidates + thoughts);

        ArrayNode allParts = Fixtures.MAPPER.createArrayNode();
        StringBuilder sse = new StringBuilder();
        for (int i = 0; i < chunks.size(); i++) {
            ObjectNode chunk = Fixtures.MAPPER.createObjectNode();
            ObjectNode candidate = chunk.putArray("candidates").addObject();
            ArrayNode parts = candidate.putObject("content").put("role", "model").putArray("parts");
            for (Block b : chunks.get(i)) {
                ObjectNode part = b.isTool() ? functionCall(b) : Fixtures.MAPPER.createObjectNode().put("text", b.text());
                parts.add(part);
                allParts.add(part);
            }
            boolean last = i == chunks.size() - 1;
            if (last) {
                candidate.put("finishReason", finishReason);
            }
            chunk.set("usageMetadata", last ? meta : Fixtures.MAPPER.createObjectNode().put("promptTokenCount", prompt)
                    .put("candidatesTokenCount", i));
            sse.append("data: ").append(write(chunk)).append("\r\n\r\n");
        }
        ObjectNode whole = Fixtures.MAPPER.createObjectNode();
        ObjectNode candidate = whole.putArray("candidates").addObject();
        candidate.putObject("content").put("role", "model").set("parts", allParts);
        candidate.put("finishReason", finishReason);
        whole.set("usageMetadata", meta);

        ChatStreamConverter converter = ChatStreams.fromGemini(Fixtures.META, true);
        List<String> events = new ArrayList<>(Fixtures.wire(converter.feed(sse.toString().getBytes(StandardCharsets.UTF_8))));
        events.addAll(Fixtures.wire(converter.finish()));

        JsonNode expected = ChunkAssembler.view(Fixtures.normalize(GeminiResponses.toChat(whole, Fixtures.META)));
        assertThat(Fixtures.normalize(ChunkAssembler.assemble(events))).isEqualTo(expected);
        assertThat(converter.usage().usage()).isEqualTo(UsageExtractor.extract(WireFormat.GEMINI, whole).orElseThrow());
    }

    @Provide
    Arbitrary<String> geminiReasons() {
        return Arbitraries.of("STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER", "MALFORMED_FUNCTION_CALL");
    }

    private static ObjectNode functionCall(Block b) {
        ObjectNode part = Fixtures.MAPPER.createObjectNode();
        ObjectNode call = part.putObject("functionCall").put("name", b.toolName());
        ObjectNode args = call.putObject("args");
        b.input().forEach(args::put);
        return part;
    }

    /** Splits text into pieces of {@code size} code points (providers never split a character). */
    private static List<String> fragments(String text, int size) {
        List<String> out = new ArrayList<>();
        int[] cps = text.codePoints().toArray();
        for (int i = 0; i < cps.length; i += size) {
            out.add(new String(cps, i, Math.min(size, cps.length - i)));
        }
        return out;
    }

    private static void event(StringBuilder sse, String name, String data) {
        sse.append("event: ").append(name).append('\n').append("data: ").append(data).append("\n\n");
    }

    private static String write(JsonNode node) {
        try {
            return Fixtures.MAPPER.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
