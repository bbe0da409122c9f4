package dev.sluice.bench;

import dev.sluice.bench.load.FakeUpstream;
import dev.sluice.gateway.translate.ChatStreamConverter;
import dev.sluice.gateway.translate.ChatStreams;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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

/**
 * What Sluice does to a native OpenAI chat stream on its way through: the load harness's stream
 * (role, three deltas, finish, usage, [DONE]) arriving in one read, split into events, each
 * read for its text, finish and usage, and written back out. The same work the harness's
 * streaming rows pay per request, without the network.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class StreamRelayBenchmark {

    static final byte[] STREAM = String.join("", FakeUpstream.STREAM).getBytes(StandardCharsets.UTF_8);

    @Benchmark
    public Object relayOneReadStream() {
        ChatStreamConverter c = ChatStreams.fromOpenAi(true);
        List<String> out = new ArrayList<>(c.feed(STREAM));
        out.addAll(c.finish());
        return out;
    }
}
