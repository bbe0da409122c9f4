package dev.sluice.bench.load;

import dev.sluice.gateway.translate.ChatStreamConverter;
import dev.sluice.gateway.translate.ChatStreams;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Heap allocated and CPU time per stream by the native OpenAI stream relay's converter alone (SSE
 * framing, the usage and text reading, the usage chunk cut out), on the harness's stream
 * ({@link FakeUpstream#STREAM}, one read per event as the fake upstream writes it), measured on this
 * thread with {@code ThreadMXBean}: numbers the machine's load does not move, for before and after
 * a change to the stream path.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.sluice.bench.load.StreamAllocation [streams]</pre>
 */
public final class StreamAllocation {

    private StreamAllocation() {}

    public static void main(String[] args) {
        int streams = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        byte[][] reads = FakeUpstream.STREAM.stream().map(e -> e.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int round = 0; round < 3; round++) { // the first rounds compile; the last is reported
            long bytes0 = threads.getCurrentThreadAllocatedBytes();
            long cpu0 = threads.getCurrentThreadCpuTime();
            for (int s = 0; s < streams; s++) {
                ChatStreamConverter c = ChatStreams.fromOpenAi(false);
                for (byte[] read : reads) {
                    sink += c.feed(read).length;
                }
                sink += c.finish().length + c.usage().usage().outputTokens();
            }
            long bytes = threads.getCurrentThreadAllocatedBytes() - bytes0;
            long cpu = threads.getCurrentThreadCpuTime() - cpu0;
            if (round == 2) {
                System.out.printf(Locale.ROOT, "%,d streams of %d events: %,.0f bytes allocated and %.2f µs of CPU per stream (%d)%n",
                        streams, reads.length, (double) bytes / streams, cpu / 1000.0 / streams, sink % 10);
            }
        }
    }
}
