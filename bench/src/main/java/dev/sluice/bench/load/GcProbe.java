package dev.sluice.bench.load;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
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
 * and largest length, and the heap allocated per request (what each young collection found minus
 * what the one before left, over the time between them, at the measured rate). CPU per request
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
                            mode.equals("stream"), conns, rate, Duration.ofSeconds(warmup), Duration.ofSeconds(seconds),
                            Long.MAX_VALUE, 0, false);
                    CpuMeter cpu = sluice.cpu().orElseThrow();
                    int[] from = new int[1];
                    Optional<Duration>[] cpuFrom = new Optional[] {Optional.empty()};
                    clientVertx.setTimer(Math.max(1, warmup * 1000L), id -> {
                        from[0] = pausesIn(log); // the log is written as each pause ends
                        cpuFrom[0] = cpu.total();
                    });
                    LoadResult r = await(LoadGenerator.run(clientVertx, spec, 2));
                    OptionalDouble cpuPer = CpuMeter.perRequest(cpuFrom[0], cpu.total(), r.completed());
                    Window w = window(pauses(Files.readAllLines(log, StandardCharsets.UTF_8)), from[0], r.completed(),
                            r.throughput());
                    System.out.printf(Locale.ROOT, "| %s | %d | %,.0f | %d | %.2f | %.1f / %.1f | %s | %s | %s / %s | %s |%n",
                            mode.equals("stream") ? "stream" : "json", conns, r.throughput(), w.pauses().size(),
                            w.perTenThousand(), w.medianPause(), w.maxPause(),
                            w.bytesPerRequest().isPresent() ? String.format(Locale.ROOT, "%.1f", w.bytesPerRequest().getAsDouble() / 1024) : "-",
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

    private static int pausesIn(Path log) {
        try {
            return pauses(Files.readAllLines(log, StandardCharsets.UTF_8)).size();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.MINUTES);
    }
}
