package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Loads the golden files under src/test/resources/translate/ and compares JSON trees. */
final class Fixtures {

    static final ObjectMapper MAPPER = new ObjectMapper();
    static final CompletionMeta META = new CompletionMeta("chatcmpl-test", "smart", 1_700_000_000L);
    static final String DONE = "[DONE]";

    private Fixtures() {
    }

    /** Base names of the fixtures in {@code translate/<dir>} with extension {@code .ext}, sorted. */
    static List<String> names(String dir, String ext) {
        URL url = Fixtures.class.getResource("/translate/" + dir);
        if (url == null) {
            throw new IllegalStateException("no fixture directory translate/" + dir);
        }
        try (Stream<Path> files = Files.list(Path.of(url.toURI()))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith("." + ext))
                    .map(n -> n.substring(0, n.length() - ext.length() - 1))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] bytes(String path) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/translate/" + path)) {
            if (in == null) {
                throw new IllegalStateException("no fixture translate/" + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode json(String path) {
        return parse(bytes(path));
    }

    static JsonNode parse(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode parse(byte[] bytes) {
        try {
            return MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Serialises and re-reads a tree so numeric node types (int vs long) do not affect equality. */
    static JsonNode normalize(JsonNode node) {
        try {
            return MAPPER.readTree(MAPPER.writeValueAsString(node));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A converter's output split into events, each ending with its blank line; the translated
     * streams write only {@code \n}, so an event ends at each {@code \n\n}.
     */
    static List<String> wire(byte[] output) {
        String text = new String(output, java.nio.charset.StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n", from)) {
            out.add(text.substring(from, end + 2));
            from = end + 2;
        }
        if (from < text.length()) {
            out.add(text.substring(from));
        }
        return out;
    }

    /**
     * Downstream events as trees: each must be one {@code data:} line plus blank line; the
     * {@code [DONE]} marker becomes the text node "[DONE]", and a one-line comment passed through
     * (": keep-alive") its own text.
     */
    static List<JsonNode> events(List<String> events) {
        List<JsonNode> out = new ArrayList<>();
        for (String e : events) {
            if (e.startsWith(":") && e.endsWith("\n\n") && e.indexOf('\n') == e.length() - 2) {
                out.add(TextNode.valueOf(e.substring(0, e.length() - 2)));
                continue;
            }
            if (!e.startsWith("data: ") || !e.endsWith("\n\n") || e.indexOf('\n') != e.length() - 2) {
                throw new AssertionError("not a single-line data event: " + e);
            }
            String data = e.substring(6, e.length() - 2);
            out.add(data.equals(DONE) ? TextNode.valueOf(DONE) : parse(data));
        }
        return out;
    }

    static ObservedUsage usage(JsonNode n) {
        return new ObservedUsage(n.path("inputTokens").asLong(), n.path("outputTokens").asLong(),
                n.path("cacheReadTokens").asLong(), n.path("cacheWriteTokens").asLong(),
                n.path("reportedByProvider").asBoolean());
    }
}
