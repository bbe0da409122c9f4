package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Request translation loses nothing it claims to carry: for generated conversations (text turns,
 * parallel tool calls and their results, system prompts) with stop sequences, max tokens and
 * temperature, reading the Anthropic and the Gemini body back gives the same ordered sequence of
 * texts, calls and results, roles strictly alternate, and the options arrive unchanged.
 */
class RequestRoundTripProperties {

    /** One item of a conversation as both sides can express it. */
    record Item(String role, String kind, String payload) {
    }

    /** One exchange: a user text, then either an assistant text or tool calls with their results. */
    record Exchange(String user, String reply, List<Map<String, Integer>> calls) {
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.strings().withCharRange(' ', '~').withCharRange('À', 'ž').withChars('\n')
                .ofMinLength(1).ofMaxLength(20).map(s -> s.replace("~", "🌍"));
    }

    @Provide
    Arbitrary<Exchange> exchanges() {
        Arbitrary<Map<String, Integer>> args = Arbitraries.maps(
                Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(4),
                Arbitraries.integers().between(0, 99)).ofMaxSize(2);
        return Combinators.combine(texts(), texts(), args.list().ofMaxSize(3)).as(Exchange::new);
    }

    @Property(tries = 300)
    void translatedRequestsCarryTheWholeConversation(
            @ForAll("system") Optional<String> system,
            @ForAll @Size(min = 1, max = 4) List<@net.jqwik.api.From("exchanges") Exchange> exchanges,
            @ForAll("texts") String last,
            @ForAll @Size(max = 4) List<@net.jqwik.api.From("texts") String> stop,
            @ForAll("maxTokens") Optional<Integer> maxTokens,
            @ForAll("temperatures") Optional<Double> temperature,
            @ForAll @IntRange(min = 1, max = 8192) int defaultMaxTokens) {
        ObjectNode request = Fixtures.MAPPER.createObjectNode();
        ArrayNode messages = request.putArray("messages");
        List<Item> expected = new ArrayList<>();
        system.ifPresent(s -> messages.addObject().put("role", "system").put("content", s));
        int callNumber = 0;
        for (Exchange ex : exchanges) {
            messages.addObject().put("role", "user").put("content", ex.user());
            expected.add(new Item("user", "text", ex.user()));
            if (ex.calls().isEmpty()) {
                messages.addObject().put("role", "assistant").put("content", ex.reply());
                expected.add(new Item("assistant", "text", ex.reply()));
                continue;
            }
            ObjectNode assistant = messages.addObject().put("role", "assistant");
            assistant.putNull("content");
            ArrayNode calls = assistant.putArray("tool_calls");
            List<String> ids = new ArrayList<>();
            for (Map<String, Integer> args : ex.calls()) {
                String id = "call_" + callNumber;
                String name = "fn" + (callNumber++ % 3);
                ObjectNode a = Fixtures.MAPPER.createObjectNode();
                args.forEach(a::put);
                ObjectNode call = calls.addObject().put("id", id).put("type", "function");
                call.putObject("function").put("name", name).put("arguments", a.toString());
                expected.add(new Item("assistant", "call", name + " " + Fixtures.normalize(a)));
                ids.add(id + "/" + name);
            }
            for (String idName : ids) {
                String[] parts = idName.split("/");
                // Prefixed so the result is never a JSON object, which Gemini would take as the response itself.
                String result = "r:" + ex.reply();
                messages.addObject().put("role", "tool").put("tool_call_id", parts[0]).put("content", result);
                expected.add(new Item("user", "result", parts[1] + " " + result));
            }
        }
        messages.addObject().put("role", "user").put("content", last);
        expected.add(new Item("user", "text", last));
        ArrayNode stops = request.putArray("stop");
        stop.forEach(stops::add);
        maxTokens.ifPresent(m -> request.put("max_tokens", m));
        temperature.ifPresent(t -> request.put("temperature", t));

        ObjectNode anthropic = AnthropicRequests.fromChat(request, "claude-x", defaultMaxTokens);
        assertThat(anthropicItems(anthropic)).isEqualTo(expected);
        assertAlternates(anthropic.path("messages"));
        assertThat(texts(anthropic.path("system"), "text")).isEqualTo(system.map(List::of).orElse(List.of()));
        assertThat(strings(anthropic.path("stop_sequences"))).isEqualTo(stop);
        assertThat(anthropic.path("max_tokens").asLong()).isEqualTo(maxTokens.map(Integer::longValue).orElse((long) defaultMaxTokens));
        assertThat(optionalDouble(anthropic.path("temperature"))).isEqualTo(temperature);

        ObjectNode gemini = GeminiRequests.fromChat(request);
        assertThat(geminiItems(gemini)).isEqualTo(expected);
        assertAlternates(gemini.path("contents"));
        assertThat(texts(gemini.path("systemInstruction").path("parts"), "text")).isEqualTo(system.map(List::of).orElse(List.of()));
        JsonNode config = gemini.path("generationConfig");
        assertThat(strings(config.path("stopSequences"))).isEqualTo(stop);
        assertThat(config.has("maxOutputTokens") ? Optional.of(config.path("maxOutputTokens").asInt()) : Optional.empty())
                .isEqualTo(maxTokens);
        assertThat(optionalDouble(config.path("temperature"))).isEqualTo(temperature);
    }

    @Provide
    Arbitrary<Optional<String>> system() {
        return texts().optional();
    }

    @Provide
    Arbitrary<Optional<Integer>> maxTokens() {
        return Arbitraries.integers().between(1, 100_000).optional();
    }

    @Provide
    Arbitrary<Optional<Double>> temperatures() {
        return Arbitraries.integers().between(0, 200).map(i -> i / 100.0).optional();
    }

    private static List<Item> anthropicItems(JsonNode body) {
        List<Item> out = new ArrayList<>();
        Map<String, String> names = new HashMap<>();
        for (JsonNode m : body.path("messages")) {
            String role = m.path("role").textValue();
            for (JsonNode b : m.path("content")) {
                switch (b.path("type").textValue()) {
                    case "text" -> out.add(new Item(role, "text", b.path("text").textValue()));
                    case "tool_use" -> {
                        names.put(b.path("id").textValue(), b.path("name").textValue());
                        out.add(new Item(role, "call", b.path("name").textValue() + " " + Fixtures.normalize(b.path("input"))));
                    }
                    case "tool_result" -> out.add(new Item(role, "result",
                            names.get(b.path("tool_use_id").textValue()) + " " + b.path("content").textValue()));
                    default -> throw new AssertionError("unexpected block " + b);
                }
            }
        }
        return out;
    }

    private static List<Item> geminiItems(JsonNode body) {
        List<Item> out = new ArrayList<>();
        for (JsonNode c : body.path("contents")) {
            String role = c.path("role").textValue().equals("model") ? "assistant" : "user";
            for (JsonNode p : c.path("parts")) {
                if (p.has("text")) {
                    out.add(new Item(role, "text", p.path("text").textValue()));
                } else if (p.has("functionCall")) {
                    JsonNode call = p.path("functionCall");
                    out.add(new Item(role, "call", call.path("name").textValue() + " " + Fixtures.normalize(call.path("args"))));
                } else {
                    JsonNode r = p.path("functionResponse");
                    out.add(new Item(role, "result", r.path("name").textValue() + " " + r.path("response").path("output").textValue()));
                }
            }
        }
        return out;
    }

    private static void assertAlternates(JsonNode turns) {
        for (int i = 1; i < turns.size(); i++) {
            assertThat(turns.get(i).path("role")).isNotEqualTo(turns.get(i - 1).path("role"));
        }
    }

    private static List<String> texts(JsonNode parts, String field) {
        List<String> out = new ArrayList<>();
        parts.forEach(p -> out.add(p.path(field).textValue()));
        return out;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(s -> out.add(s.textValue()));
        return out;
    }

    private static Optional<Double> optionalDouble(JsonNode n) {
        return n.isNumber() ? Optional.of(n.doubleValue()) : Optional.empty();
    }
}
