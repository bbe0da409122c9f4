package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Splitting the same upstream byte stream at arbitrary points (inside lines, between CR and LF,
 * inside multi-byte characters), with any of the three line endings, yields the same downstream
 * events (keep-alive comments aside, which follow the reads), the same usage and the same
 * completion state.
 */
class StreamSplitProperties {

    enum LineEnding {
        LF("\n"), CRLF("\r\n"), CR("\r");

        final String text;

        LineEnding(String text) {
            this.text = text;
        }
    }

    @Provide
    Arbitrary<String> fixtures() {
        return Arbitraries.of(Fixtures.names("streams", "json"));
    }

    @Property(tries = 400)
    void converterOutputDoesNotDependOnChunking(@ForAll("fixtures") String name, @ForAll LineEnding ending,
            @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 100_000) Integer> cuts) {
        JsonNode spec = StreamGoldenTest.spec(name);
        byte[] upstream = withLineEnding(StreamGoldenTest.upstream(name), ending);

        ChatStreamConverter whole = StreamGoldenTest.converter(spec);
        StringBuilder expected = new StringBuilder(text(whole.feed(upstream))).append(text(whole.finish()));

        ChatStreamConverter split = StreamGoldenTest.converter(spec);
        StringBuilder actual = new StringBuilder();
        for (byte[] piece : split(upstream, cuts)) {
            actual.append(text(split.feed(piece)));
        }
        actual.append(text(split.finish()));

        // Keep-alive comments follow the reads (one for a read whose events all come to nothing); the events do not.
        assertThat(withoutKeepAlives(actual)).isEqualTo(withoutKeepAlives(expected));
        assertThat(split.usage().usage()).isEqualTo(whole.usage().usage()).isEqualTo(Fixtures.usage(spec.path("usage")));
        assertThat(split.completed()).isEqualTo(whole.completed());
    }

    @Property(tries = 200)
    void trackerUsageDoesNotDependOnChunking(@ForAll("fixtures") String name, @ForAll LineEnding ending,
            @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 100_000) Integer> cuts) {
        JsonNode spec = StreamGoldenTest.spec(name);
        StreamUsageTracker tracker = StreamUsageTracker.of(StreamGoldenTest.format(spec));
        for (byte[] piece : split(withLineEnding(StreamGoldenTest.upstream(name), ending), cuts)) {
            tracker.feed(piece);
        }
        tracker.finish();
        assertThat(tracker.usage()).isEqualTo(Fixtures.usage(spec.path("usage")));
    }

    @Property(tries = 200)
    void parserEventsDoNotDependOnChunking(@ForAll("fixtures") String name, @ForAll LineEnding ending,
            @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 100_000) Integer> cuts) {
        byte[] upstream = withLineEnding(StreamGoldenTest.upstream(name), ending);
        List<SseEvent> expected = SseParserTest.parseAll(upstream, 0);
        SseParser parser = new SseParser();
        List<SseEvent> actual = new ArrayList<>();
        for (byte[] piece : split(upstream, cuts)) {
            actual.addAll(parser.feed(piece));
        }
        actual.addAll(parser.finish());
        assertThat(actual).isEqualTo(expected).isNotEmpty();
    }

    private static String withoutKeepAlives(CharSequence output) {
        return output.toString().replace(new String(BaseChatStream.KEEP_ALIVE, StandardCharsets.US_ASCII), "");
    }

    private static String text(byte[] output) {
        return new String(output, StandardCharsets.UTF_8);
    }

    /** Rewrites every line ending; the fixtures' JSON data never holds a raw CR or LF. */
    static byte[] withLineEnding(byte[] upstream, LineEnding ending) {
        String text = new String(upstream, StandardCharsets.UTF_8).replace("\r\n", "\n").replace("\n", ending.text);
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Cuts at the given offsets (modulo the length, duplicates allowed: empty pieces are fed too). */
    static List<byte[]> split(byte[] bytes, List<Integer> cuts) {
        int[] points = cuts.stream().mapToInt(c -> c % (bytes.length + 1)).sorted().toArray();
        List<byte[]> pieces = new ArrayList<>();
        int from = 0;
        for (int p : points) {
            pieces.add(Arrays.copyOfRange(bytes, from, p));
            from = p;
        }
        pieces.add(Arrays.copyOfRange(bytes, from, bytes.length));
        return pieces;
    }
}
