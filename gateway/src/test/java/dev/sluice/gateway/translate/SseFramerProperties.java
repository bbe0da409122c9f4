package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The frames of a stream are the stream itself, cut after each blank line, whatever the chunks
 * it came in; each frame's data is what {@link SseParser} reads for the same event.
 */
class SseFramerProperties {

    @Provide
    Arbitrary<String> streams() {
        Arbitrary<String> line = Arbitraries.of("data: {\"a\":1}", "data:x", "data", "data:  two spaces", "data: héllo 🌍",
                ": keep-alive", "event: ping", "id: 7", "retry: 10", "dataX: not data", "", "data: [DONE]");
        Arbitrary<String> ending = Arbitraries.of("\n", "\r\n", "\r");
        Arbitrary<String> endedLine = Combinators.combine(line, ending).as(String::concat);
        return Combinators.combine(Arbitraries.of("", "\uFEFF"), endedLine.list().ofMaxSize(30))
                .as((bom, lines) -> bom + String.join("", lines));
    }

    @Property(tries = 500)
    void framesDoNotDependOnChunkingAndAddUpToTheStream(@ForAll("streams") String stream,
            @ForAll @Size(max = 10) List<@IntRange(min = 0, max = 10_000) Integer> cuts) {
        byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
        Framed whole = frame(List.of(bytes));
        Framed split = frame(StreamSplitProperties.split(bytes, cuts));

        assertThat(split.frames).isEqualTo(whole.frames);
        assertThat(split.data).isEqualTo(whole.data);
        String fed = String.join("", whole.frames.subList(0, whole.fedFrames));
        assertThat(stream).startsWith(fed);
        String rest = stream.substring(fed.length());
        if (whole.frames.size() > whole.fedFrames) {
            assertThat(whole.frames.get(whole.fedFrames)).isEqualTo(rest);
        }
    }

    @Property(tries = 500)
    void frameDataIsWhatTheSpecificationReads(@ForAll("streams") String stream) {
        assertThat(frame(List.of(stream.getBytes(StandardCharsets.UTF_8))).data).isEqualTo(specificationData(stream));
    }

    /**
     * The data of each dispatched event, read the plain way the event-stream specification words
     * it (plus the last event without its blank line, which the gateway still takes): the oracle.
     */
    static List<String> specificationData(String stream) {
        String text = stream.startsWith("\uFEFF") ? stream.substring(1) : stream;
        List<String> events = new ArrayList<>();
        StringBuilder data = null;
        for (String line : text.split("\r\n|\r|\n", -1)) {
            if (line.isEmpty()) {
                if (data != null) {
                    events.add(data.toString());
                }
                data = null;
                continue;
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            if (field.equals("data")) {
                data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
            }
        }
        if (data != null) {
            events.add(data.toString());
        }
        return events;
    }

    @Example
    void theLfOfABlankLineThatAChunkCutsOffFollowsAsAContinuation() {
        SseFramer framer = new SseFramer(1024);
        List<String> frames = new ArrayList<>();
        SseFramer.Receiver receiver = f -> frames.add((f.continuation() ? "+" : "")
                + new String(f.bytes(), f.from(), f.to() - f.from(), StandardCharsets.UTF_8));
        framer.feed(utf8("data: a\r\n\r"), receiver);
        framer.feed(utf8("\ndata: b\r\n\r\n"), receiver);
        assertThat(frames).containsExactly("data: a\r\n\r", "+\n", "data: b\r\n\r\n");
        assertThat(framer.holding()).isFalse();
    }

    @Example
    void anEventThatArrivesWholeIsReadWhereItLies() {
        SseFramer framer = new SseFramer(1024);
        byte[] chunk = utf8("data: a\n\ndata: b");
        List<byte[]> arrays = new ArrayList<>();
        framer.feed(chunk, frame -> arrays.add(frame.bytes()));
        assertThat(arrays).containsExactly(chunk);
        assertThat(framer.holding()).isTrue();
    }

    @Example
    void aLongLineOrEventIsABrokenUpstream() {
        assertThatThrownBy(() -> new SseFramer(8).feed(utf8("data: 1234"), frame -> { }))
                .isInstanceOf(UpstreamFormatException.class).hasMessage("event-stream line longer than 8 bytes");
        SseFramer framer = new SseFramer(12);
        framer.feed(utf8("a: 1\nb: 2\n"), frame -> { });
        assertThatThrownBy(() -> framer.feed(utf8("c: 3"), frame -> { }))
                .isInstanceOf(UpstreamFormatException.class).hasMessage("event-stream event longer than 12 bytes");
    }

    /**
     * The frames fed (then the one {@code finish} hands over, if any), as text, a continuation
     * joined to the frame it ends, and the data of those with data.
     */
    private record Framed(List<String> frames, int fedFrames, List<String> data) {
    }

    private static Framed frame(List<byte[]> chunks) {
        SseFramer framer = new SseFramer(1 << 20);
        List<String> frames = new ArrayList<>();
        List<String> data = new ArrayList<>();
        SseFramer.Receiver receiver = f -> {
            String text = new String(f.bytes(), f.from(), f.to() - f.from(), StandardCharsets.UTF_8);
            if (f.continuation()) {
                frames.set(frames.size() - 1, frames.getLast() + text);
                return;
            }
            frames.add(text);
            if (f.hasData()) {
                data.add(new String(Arrays.copyOfRange(f.data(), f.dataFrom(), f.dataTo()), StandardCharsets.UTF_8));
            }
        };
        for (byte[] chunk : chunks) {
            framer.feed(chunk, receiver);
        }
        int fed = frames.size();
        framer.finish(receiver);
        return new Framed(frames, fed, data);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
