package dev.sluice.bench;

import dev.sluice.bench.load.FakeUpstream;
import dev.sluice.gateway.translate.ChatStreamConverter;
import dev.sluice.gateway.translate.ChatStreams;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What Sluice does to a native OpenAI chat stream on its way through: the load harness's stream
 * (role, three deltas, finish, usage, [DONE]) arriving in one read, framed into events, each read
 * for its text, finish and usage, and handed back as the bytes to write to the client. The same
 * work the harness's streaming rows pay per request, without the network. With the usage chunk
 * forwarded (the client asked for it) the read goes out as it came; withheld (the gateway asked on
 * the client's behalf), the rest is copied around it. The long stream shows the cost per event of
 * a real answer, which arrives a token or two at a time.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class StreamRelayBenchmark {

    static final byte[] STREAM = String.join("", FakeUpstream.STREAM).getBytes(StandardCharsets.UTF_8);

    /**
     * A longer answer as a provider streams it: the harness's first event, 300 one-word deltas, then
     * the harness's finish, usage and [DONE], each event in a read of its own.
     */
    static final byte[][] LONG_STREAM = longStream();

    private static byte[][] longStream() {
        java.util.List<String> events = new java.util.ArrayList<>();
        events.add(FakeUpstream.STREAM.get(0));
        String delta = FakeUpstream.STREAM.get(1).replace("Hello", " word");
        for (int i = 0; i < 300; i++) {
            events.add(delta);
        }
        events.addAll(FakeUpstream.STREAM.subList(4, FakeUpstream.STREAM.size()));
        return events.stream().map(e -> e.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    }

    @Benchmark
    public void relayOneReadStream(Blackhole out) {
        relay(true, out);
    }

    @Benchmark
    public void relayOneReadStreamWithholdingUsage(Blackhole out) {
        relay(false, out);
    }

    @Benchmark
    public void relayLongStreamEventByEvent(Blackhole out) {
        ChatStreamConverter c = ChatStreams.fromOpenAi(false);
        for (byte[] read : LONG_STREAM) {
            out.consume(c.feed(read));
        }
        out.consume(c.finish());
    }

    private static void relay(boolean forwardUsageChunk, Blackhole out) {
        ChatStreamConverter c = ChatStreams.fromOpenAi(forwardUsageChunk);
        out.consume(c.feed(STREAM));
        out.consume(c.finish());
    }
}
