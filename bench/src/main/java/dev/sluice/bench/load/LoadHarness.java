package dev.sluice.bench.load;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A bounded, loopback-only load test of the gateway. In one run and against one fast fake upstream
 * it measures direct calls, the same calls through nginx as a plain reverse proxy (when nginx is
 * installed), through a bare reverse proxy ({@link BareProxy}: the HTTP stack Sluice is
 * built on, without Sluice) and through Sluice, for each connection count, answer form and load, and
 * reports throughput and p50/p99 latency as a Markdown table with Sluice compared to nginx, and the
 * bare proxy to both, so that the stack's share of Sluice's cost shows.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.sluice.bench.load.LoadHarness [options]</pre>
 */
public final class LoadHarness {

    /** Everything a harness run produced. */
    public record Outcome(List<LoadResult> results, List<String> environment, String markdown) {
        public Outcome {
            results = List.copyOf(results);
            environment = List.copyOf(environment);
        }
    }

    private LoadHarness() {}

    /** Runs the harness with command line options; see {@link HarnessOptions#USAGE}. */
    public static void main(String[] args) throws Exception {
        HarnessOptions options;
        try {
            options = HarnessOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Outcome o = run(options, command(args), System.out);
        System.out.println();
        System.out.println(o.markdown());
        if (options.out().isPresent()) {
            Files.writeString(options.out().get(), o.markdown(), StandardCharsets.UTF_8);
            System.out.println("Written to " + options.out().get());
        }
        // Vert.x and child processes are all stopped; nothing else should keep the JVM.
        System.exit(0);
    }

    /** Runs every measurement {@code options} asks for, logging progress to {@code log}. */
    public static Outcome run(HarnessOptions options, String command, PrintStream log) throws Exception {
        List<String> env = new ArrayList<>();
        env.add("Date: " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "; " + Runtime.getRuntime().availableProcessors()
                + " processors; Java " + Runtime.version() + "; load average before: " + loadAverage());
        Vertx upstreamVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(options.upstreamThreads()));
        Vertx clientVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(options.clientThreads()));
        Optional<NginxProxy> nginx = Optional.empty();
        Optional<BareProxy.Child> bare = Optional.empty();
        Optional<SluiceServer> sluice = Optional.empty();
        Optional<SluiceServer> observed = Optional.empty();
        List<LoadResult> results = new ArrayList<>();
        try {
            FakeUpstream upstream = await(FakeUpstream.start(upstreamVertx, options.upstreamThreads()));
            env.add("Fake upstream: Vert.x, " + options.upstreamThreads() + " event loop(s), 127.0.0.1:" + upstream.port()
                    + "; load generator: Vert.x HttpClient, " + options.clientThreads() + " event loop(s), HTTP/1.1 keep-alive");
            env.add("Each run: " + options.warmup().toSeconds() + " s warm-up, then at most " + options.measure().toSeconds()
                    + " s or " + options.maxRequests() + " answers; latency is send (or, open loop, scheduled send) to last byte; "
                    + "user message of " + LoadGenerator.prompt(options.promptChars()).length() + " characters"
                    + (options.distinctPrompts() ? " plus its request number, different in every request"
                            : ", the same in every request"));
            if (options.rounds() > 1) {
                env.add("Rounds: each run " + options.rounds() + " times, the targets taking turns; a row adds up the rounds' "
                        + "answers and shows the median of their p50 and p99 and the largest max");
            }
            if (options.targets().contains("nginx")) {
                Optional<Path> binary = options.nginx().or(NginxProxy::find);
                if (binary.isEmpty()) {
                    env.add("nginx: not installed, its rows are skipped");
                    log.println("nginx not found: skipping the nginx rows");
                } else {
                    NginxProxy n = NginxProxy.start(binary.get(), upstream.port(), options.nginxWorkers());
                    nginx = Optional.of(n);
                    env.add("nginx: " + n.version() + ", " + options.nginxWorkers() + " workers, plain reverse proxy, "
                            + "keepalive to the upstream, proxy_buffering off");
                }
            }
            if (options.targets().contains("bare")) {
                BareProxy.Child v = BareProxy.Child.start(options.childJvmArgs(), upstream.port());
                bare = Optional.of(v);
                env.add("Bare proxy: child JVM, " + BareProxy.class.getSimpleName() + ": Sluice's HTTP stack (Vert.x "
                        + "server, Sluice's UpstreamClient), default event loops and upstream pool ("
                        + BareProxy.UPSTREAM_POOL_SIZE + " connections per event loop), headers and bodies copied, nothing else");
            }
            if (options.targets().contains("sluice")) {
                SluiceServer s = SluiceServer.start(options.sluice(), upstream.port());
                sluice = Optional.of(s);
                env.add("Sluice: " + s.description() + ", default event loops, in-memory store, one openai-compatible "
                        + "deployment, limits never reached, ledger and metrics off");
            }
            if (options.targets().contains("observed")) {
                SluiceServer s = SluiceServer.start(options.sluice(), upstream.port(), true, options.ledgerRows());
                observed = Optional.of(s);
                env.add("Observed: the same Sluice with its usage ledger (SQLite, default flush and batch, rows "
                        + options.ledgerRows().wireName() + ") and the admin "
                        + "listener's Prometheus metrics on; nothing scrapes them during the runs");
            }
            if (!options.prewarm().isZero()) {
                List<String> warmed = prewarm(options, clientVertx, upstream, bare, sluice, observed, log);
                String on = warmed.stream().map(w -> switch (w) {
                    case "bare" -> "the bare proxy";
                    case "sluice" -> "Sluice";
                    case "observed" -> "the observed Sluice";
                    default -> "direct calls";
                }).collect(Collectors.joining(" and "));
                env.add("Pre-warm: " + options.prewarm().toSeconds() + " s of unrecorded load per answer form on "
                        + (warmed.size() > 1 ? "each of " : "") + on + " before the first run");
            }
            for (boolean streaming : options.streaming()) {
                for (int conns : options.connections()) {
                    for (double rate : options.rates()) {
                        LoadSpec base = new LoadSpec("direct", "127.0.0.1", upstream.port(), "", streaming, conns, rate,
                                options.warmup(), options.measure(), options.maxRequests(), options.promptChars(),
                                options.distinctPrompts());
                        // The targets back to back, so that they see the same machine load.
                        List<LoadSpec> specs = new ArrayList<>();
                        if (options.targets().contains("direct")) {
                            specs.add(base);
                        }
                        if (nginx.isPresent()) {
                            specs.add(base.at("nginx", "127.0.0.1", nginx.get().port(), ""));
                        }
                        if (bare.isPresent()) {
                            specs.add(base.at("bare", "127.0.0.1", bare.get().port(), ""));
                        }
                        if (sluice.isPresent()) {
                            specs.add(base.at("sluice", "127.0.0.1", sluice.get().port(), SluiceServer.KEY));
                        }
                        if (observed.isPresent()) {
                            specs.add(base.at("observed", "127.0.0.1", observed.get().port(), SluiceServer.KEY));
                        }
                        // Rounds take turns too, so that a minute of a busy machine falls on every target alike.
                        Map<String, List<LoadResult>> rounds = new LinkedHashMap<>();
                        for (int round = 0; round < options.rounds(); round++) {
                            for (LoadSpec spec : specs) {
                                Optional<CpuMeter> proxyCpu = switch (spec.target()) {
                                    case "nginx" -> nginx.map(NginxProxy::cpu);
                                    case "bare" -> bare.flatMap(BareProxy.Child::cpu);
                                    case "sluice" -> sluice.flatMap(SluiceServer::cpu);
                                    case "observed" -> observed.flatMap(SluiceServer::cpu);
                                    default -> Optional.empty();
                                };
                                rounds.computeIfAbsent(spec.target(), t -> new ArrayList<>())
                                        .add(measure(clientVertx, spec, options.clientThreads(), proxyCpu));
                            }
                        }
                        for (List<LoadResult> measured : rounds.values()) {
                            LoadResult r = LoadResult.ofRounds(measured);
                            LoadSpec spec = r.spec();
                            results.add(r);
                            log.printf(java.util.Locale.ROOT, "%-6s %-6s conns=%-4d %-14s %,10.0f req/s  p50 %8s ms  p99 %8s ms  "
                                    + "errors %d  cpu/req proxy %s harness %s%n", spec.target(), Report.form(spec), conns,
                                    Report.load(spec), r.throughput(), Report.ms(r.p50Micros()), Report.ms(r.p99Micros()),
                                    r.errors(), Report.micros(r.proxyCpuMicros()), Report.micros(r.harnessCpuMicros()));
                        }
                    }
                }
            }
        } finally {
            if (sluice.isPresent()) {
                sluice.get().close();
            }
            if (observed.isPresent()) {
                observed.get().close();
            }
            if (bare.isPresent()) {
                bare.get().close();
            }
            if (nginx.isPresent()) {
                nginx.get().close();
            }
            clientVertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            upstreamVertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        env.add("Load average after: " + loadAverage());
        return new Outcome(results, env, Report.markdown(command, env, results));
    }

    /**
     * Unrecorded load so that the JIT compilers of the proxy JVMs (the bare proxy, Sluice) and
     * of this JVM are done before the first measurement; on a busy machine that takes tens of seconds
     * and otherwise shows as a slow first row. Each proxy JVM compiles its own code, so each is
     * warmed; with neither, direct calls warm this JVM. Returns the targets warmed.
     */
    private static List<String> prewarm(HarnessOptions options, Vertx vertx, FakeUpstream upstream,
            Optional<BareProxy.Child> bare, Optional<SluiceServer> sluice, Optional<SluiceServer> observed,
            PrintStream log) throws Exception {
        int conns = options.connections().stream().mapToInt(Integer::intValue).max().orElse(64);
        List<LoadSpec> targets = new ArrayList<>();
        LoadSpec any = new LoadSpec("direct", "127.0.0.1", upstream.port(), "", false, conns, 0, Duration.ZERO,
                options.prewarm(), Long.MAX_VALUE, options.promptChars(), options.distinctPrompts());
        bare.ifPresent(b -> targets.add(any.at("bare", "127.0.0.1", b.port(), "")));
        sluice.ifPresent(s -> targets.add(any.at("sluice", "127.0.0.1", s.port(), SluiceServer.KEY)));
        observed.ifPresent(s -> targets.add(any.at("observed", "127.0.0.1", s.port(), SluiceServer.KEY)));
        if (targets.isEmpty()) {
            targets.add(any);
        }
        for (boolean streaming : options.streaming()) {
            for (LoadSpec t : targets) {
                LoadSpec spec = new LoadSpec("prewarm", t.host(), t.port(), t.apiKey(), streaming, conns, 0, Duration.ZERO,
                        options.prewarm(), Long.MAX_VALUE, options.promptChars(), options.distinctPrompts());
                LoadResult r = await(LoadGenerator.run(vertx, spec, options.clientThreads()));
                // Named only when there is more than one, so that a run without the bare proxy logs as before.
                log.printf(java.util.Locale.ROOT, "prewarm %-6s %s%,d answers, %d errors%n", Report.form(spec),
                        targets.size() > 1 ? t.target() + " " : "", r.completed(), r.errors());
            }
        }
        return targets.stream().map(LoadSpec::target).toList();
    }

    /** Runs {@code spec}, reading CPU times when the warm-up ends and when the last answer is in. */
    private static LoadResult measure(Vertx vertx, LoadSpec spec, int eventLoops, Optional<CpuMeter> proxy)
            throws Exception {
        CpuMeter self = CpuMeter.self();
        CpuReadings start = new CpuReadings();
        long timer = vertx.setTimer(Math.max(1, spec.warmup().toMillis()), id -> {
            start.harness = self.total();
            start.proxy = proxy.flatMap(CpuMeter::total);
        });
        LoadResult r = await(LoadGenerator.run(vertx, spec, eventLoops));
        vertx.cancelTimer(timer);
        Optional<Duration> harnessEnd = self.total();
        Optional<Duration> proxyEnd = proxy.flatMap(CpuMeter::total);
        return r.withCpu(CpuMeter.perRequest(start.proxy, proxyEnd, r.completed()),
                CpuMeter.perRequest(start.harness, harnessEnd, r.completed()));
    }

    /** CPU times read on an event loop and used by the main thread after the run. */
    private static final class CpuReadings {
        volatile Optional<Duration> harness = Optional.empty();
        volatile Optional<Duration> proxy = Optional.empty();
    }

    /** The command as a reader would type it. */
    static String command(String[] args) {
        String cp = System.getProperty("java.class.path", "");
        String where = cp.endsWith("benchmarks.jar") ? "-cp bench/target/benchmarks.jar" : "-cp <bench class path>";
        String rest = java.util.Arrays.stream(args).map(a -> a.contains(" ") ? "'" + a + "'" : a)
                .collect(Collectors.joining(" "));
        return ("java " + where + " " + LoadHarness.class.getName() + " " + rest).strip();
    }

    /** The 1, 5 and 15 minute load averages, or "unknown" off Linux. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split("\\s+");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        try {
            return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }
}
