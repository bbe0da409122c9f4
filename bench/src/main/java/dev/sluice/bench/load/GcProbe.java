package dev.sluice.bench.load;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What Sluice's collector does per request, measured in ways the machine's load hardly moves:
 * a Sluice child JVM (with the flags bin/sluice passes, plus {@code --sluice-jvm-args}) writes a
 * GC log, and for each answer form and connection count, at an open-loop rate, the probe reads the
 * log lines written while answers were measured: young pauses per 10,000 requests, their median
 * and largest length, and the heap allocated per request (the used heap read with {@code jcmd}
 * before and after the measured run, each pause's heap before it less what was left before it).
 * Each warm-up is a run of its own, so that the heap is read while nothing is sent. CPU per request
 * and p50/p99 are printed too, for reading beside the load average, not for comparison.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.sluice.bench.load.GcProbe [--modes plain,stream]
 *     [--connections 64,256] [--rate 5000] [--warmup 3] [--seconds 12] [--prewarm 15] [--sluice-jvm-args "..."]</pre>
 */
public final class GcProbe {

    /** One G1 pause line of {@code -Xlog:gc} with uptime in milliseconds. */
    private static final Pattern PAUSE = Pattern.compile(
            "^\\[(\\d+)ms\\].*GC\\(\\d+\\) Pause (Young.*?) (\\d+)M->(\\d+)M\\(\\d+M\\) ([0-9.]+)ms");

    /** A young pause: when (JVM uptime, ms), heap before and after (MB), and its length (ms). */
    record Pause(long atMillis, long beforeMb, long afterMb, double millis) {}

    /**
     * What the log shows over one measured window.
     *
     * @param pauses        young pauses in the window
     * @param perTenThousand pauses per 10,000 measured requests
     * @param bytesPerRequest heap allocated per request; empty with fewer than two pauses in the window
     */
    record Window(List<Pause> pauses, double perTenThousand, OptionalDouble bytesPerRequest) {
        Window {
            pauses = List.copyOf(pauses);
        }

        double medianPause() {
            double[] m = pauses.stream().mapToDouble(Pause::millis).sorted().toArray();
            return m.length == 0 ? 0 : m[m.length / 2];
        }

        double maxPause() {
            return pauses.stream().mapToDouble(Pause::millis).max().orElse(0);
        }
    }

    private GcProbe() {}

    /** Every young pause of a {@code -Xlog:gc:...:uptimemillis} log, in order. */
    static List<Pause> pauses(List<String> lines) {
        List<Pause> out = new ArrayList<>();
        for (String line : lines) {
            Matcher m = PAUSE.matcher(line);
            if (m.find()) {
                out.add(new Pause(Long.parseLong(m.group(1)), Long.parseLong(m.group(3)), Long.parseLong(m.group(4)),
                        Double.parseDouble(m.group(5))));
            }
        }
        return out;
    }

    /**
     * The pauses of {@code all} from index {@code from} (the pauses logged before the window) on, for
     * {@code requests} answered in the window at {@code rate} per second. Allocation between two
     * pauses is the heap before the second minus the heap after the first.
     */
    static Window window(List<Pause> all, int from, long requests, double rate) {
        List<Pause> in = all.subList(Math.min(from, all.size()), all.size());
        OptionalDouble perRequest = OptionalDouble.empty();
        if (in.size() >= 2) {
            long mb = 0;
            for (int i = 1; i < in.size(); i++) {
                mb += in.get(i).beforeMb() - in.get(i - 1).afterMb();
            }
            double seconds = (in.getLast().atMillis() - in.getFirst().atMillis()) / 1000.0;
            perRequest = OptionalDouble.of(mb * 1024.0 * 1024.0 / (seconds * rate));
        }
        return new Window(in, requests == 0 ? 0 : in.size() * 10_000.0 / requests, perRequest);
    }

    public static void main(String[] args) throws Exception {
        List<String> modes = List.of("plain", "stream");
        List<Integer> connections = List.of(64, 256);
        double rate = 5000;
        int warmup = 3;
        int seconds = 12;
        int prewarm = 15;
        List<String> extra = List.of();
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--modes" -> modes = List.of(v.split(","));
                case "--connections" -> connections = java.util.Arrays.stream(v.split(",")).map(Integer::valueOf).toList();
                case "--rate" -> rate = Double.parseDouble(v);
                case "--warmup" -> warmup = Integer.parseInt(v);
                case "--seconds" -> seconds = Integer.parseInt(v);
                case "--prewarm" -> prewarm = Integer.parseInt(v);
                case "--sluice-jvm-args" -> extra = java.util.Arrays.stream(v.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
                default -> throw new IllegalArgumentException(args[i] + ": unknown option");
            }
        }
        Path dir = Files.createTempDirectory("sluice-gc-probe");
        Path log = dir.resolve("gc.log");
        List<String> jvm = new ArrayList<>(extra);
        jvm.add("-Xlog:gc:file=" + log + ":uptimemillis:filecount=0");
        List<String> flags = HarnessOptions.withLauncherFlags(jvm);
        System.out.println("Sluice JVM flags: " + String.join(" ", flags) + "; load average " + LoadHarness.loadAverage());
        Vertx upstreamVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        Vertx clientVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        FakeUpstream upstream = await(FakeUpstream.start(upstreamVertx, 1));
        try (SluiceServer sluice = SluiceServer.start(new SluiceServer.Launch.ChildJvm(flags), upstream.port())) {
            for (String mode : modes) {
                boolean streaming = mode.equals("stream");
                LoadSpec warm = new LoadSpec("prewarm", "127.0.0.1", sluice.port(), SluiceServer.KEY, streaming,
                        connections.stream().mapToInt(Integer::intValue).max().orElse(64), 0, Duration.ZERO,
                        Duration.ofSeconds(prewarm), Long.MAX_VALUE, 0, false);
                await(LoadGenerator.run(clientVertx, warm, 2));
            }
            System.out.println("| form | conns | req/s | young pauses | per 10k requests | median / max pause ms "
                    + "| KB allocated per request | CPU µs/req | p50 / p99 ms | load average |");
            System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
            for (String mode : modes) {
                for (int conns : connections) {
                    LoadSpec spec = new LoadSpec("sluice", "127.0.0.1", sluice.port(), SluiceServer.KEY,
                            mode.equals("stream"), conns, rate, Duration.ZERO, Duration.ofSeconds(seconds),
                            Long.MAX_VALUE, 0, false);
                    // The warm-up is a run of its own, so that the heap is read while nothing is sent.
                    await(LoadGenerator.run(clientVertx, spec.at("warmup", spec.host(), spec.port(), spec.apiKey())
                            .withMeasure(Duration.ofSeconds(warmup)), 2));
                    CpuMeter cpu = sluice.cpu().orElseThrow();
                    long pid = sluice.pid().orElseThrow();
                    List<Pause> before = pauses(Files.readAllLines(log, StandardCharsets.UTF_8));
                    long usedBefore = usedKb(pid);
                    Optional<Duration> cpuBefore = cpu.total();
                    LoadResult r = await(LoadGenerator.run(clientVertx, spec, 2));
                    OptionalDouble cpuPer = CpuMeter.perRequest(cpuBefore, cpu.total(), r.completed());
                    long usedAfter = usedKb(pid);
                    List<Pause> all = pauses(Files.readAllLines(log, StandardCharsets.UTF_8));
                    Window w = window(all, before.size(), r.completed(), r.throughput());
                    double kb = allocatedKb(usedBefore, w.pauses(), usedAfter) / Math.max(1, r.completed());
                    System.out.printf(Locale.ROOT, "| %s | %d | %,.0f | %d | %.2f | %.1f / %.1f | %.1f | %s | %s / %s | %s |%n",
                            mode.equals("stream") ? "stream" : "json", conns, r.throughput(), w.pauses().size(),
                            w.perTenThousand(), w.medianPause(), w.maxPause(), kb,
                            Report.micros(cpuPer), Report.ms(r.p50Micros()), Report.ms(r.p99Micros()), LoadHarness.loadAverage());
                }
            }
        } finally {
            clientVertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            upstreamVertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        System.out.println("GC log: " + log);
        System.exit(0);
    }

    /**
     * Heap allocated between two readings of the used heap with {@code pauses} between them: what
     * each pause found less what the reading or pause before left, and what was added since the last.
     */
    static long allocatedKb(long usedBeforeKb, List<Pause> pauses, long usedAfterKb) {
        long total = 0;
        long left = usedBeforeKb;
        for (Pause p : pauses) {
            total += p.beforeMb() * 1024 - left;
            left = p.afterMb() * 1024;
        }
        return total + usedAfterKb - left;
    }

    private static final Pattern USED = Pattern.compile("garbage-first heap .* used (\\d+)K");

    /** The child's used heap, in KB, as {@code jcmd PID GC.heap_info} reports it. */
    static long usedKb(long pid) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process p = new ProcessBuilder(jcmd, Long.toString(pid), "GC.heap_info").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Matcher m = USED.matcher(out);
        if (!m.find()) {
            throw new IOException("jcmd GC.heap_info: no used heap in " + out);
        }
        return Long.parseLong(m.group(1));
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.MINUTES);
    }
}
