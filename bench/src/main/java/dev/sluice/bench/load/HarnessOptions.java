package dev.sluice.bench.load;

import dev.sluice.runtime.config.LedgerSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * What a harness run measures and how.
 *
 * @param targets        which of direct, nginx, bare (a reverse proxy on Sluice's HTTP stack), sluice (ledger and
 *                       metrics off), observed (Sluice with its SQLite ledger and Prometheus metrics on) to measure
 * @param connections    connection counts, one set of runs each
 * @param streaming      answer forms: false for whole JSON answers, true for SSE streams
 * @param rates          0 for closed loop (as fast as possible), else open-loop requests per second
 * @param prewarm        unrecorded load on Sluice (and direct calls) per answer form before any run, so that
 *                       both JVMs are compiled before the first measurement
 * @param warmup         warm-up time of each run
 * @param measure        longest measuring time of each run
 * @param maxRequests    most answers measured in each run
 * @param rounds         times each run is repeated, the targets taking turns (see {@link LoadResult#ofRounds})
 * @param promptChars    length of the user message of every request
 * @param distinctPrompts whether every user message ends with its own number (see {@link LoadSpec})
 * @param sluice         how Sluice is started; its JVM arguments also start the bare proxy
 * @param nginx          the nginx executable; empty to look for one
 * @param nginxWorkers   nginx worker processes
 * @param clientThreads  event loops of the load generator
 * @param upstreamThreads event loops of the fake upstream
 * @param out            where to write the Markdown report, if anywhere
 * @param ledgerRows     the observed Sluice's {@code ledger.rows}: which requests get a row of their own
 */
public record HarnessOptions(List<String> targets, List<Integer> connections, List<Boolean> streaming,
        List<Double> rates, Duration prewarm, Duration warmup, Duration measure, long maxRequests, int rounds, int promptChars, boolean distinctPrompts,
        SluiceServer.Launch sluice,
        Optional<Path> nginx, int nginxWorkers, int clientThreads, int upstreamThreads, Optional<Path> out,
        LedgerSettings.Rows ledgerRows) {

    static final List<String> TARGETS = List.of("direct", "nginx", "bare", "sluice", "observed");

    static final String USAGE = """
            usage: LoadHarness [options]
              --targets direct,nginx,bare,sluice
                                              what to measure (nginx is skipped when not installed; bare is a
                                              reverse proxy on Sluice's HTTP stack in a child JVM: its floor;
                                              sluice runs with ledger and metrics off, observed is a second
                                              Sluice with its SQLite ledger and /metrics on)
              --connections 64,256            keep-alive connections, one set of runs each
              --modes plain,stream            whole JSON answers and/or SSE streams
              --rate max                      'max' (closed loop) and/or open-loop rates in req/s, e.g. max,5000
              --prewarm 30                    seconds of unrecorded load per answer form on Sluice (direct calls without Sluice)
                                              before the first run (JIT compilation of both JVMs)
              --warmup 5                      warm-up seconds per run
              --seconds 10                    longest measuring time per run, seconds
              --requests 1000000              most answers measured per run
              --rounds 1                      repeat each run this often, the targets taking turns, and report the
                                              median of the rounds' percentiles: steadier on a shared machine
              --prompt-chars 0                pad the user message to this many characters (Sluice tokenizes it)
              --prompts same                  same: one user message for all requests (Sluice counts it once and
                                              then takes the count from its cache); distinct: each message ends
                                              with its request number, so Sluice tokenizes every one
              --sluice child                  child | in-process | jar:PATH (java -jar PATH serve --config FILE)
              --sluice-jvm-args "..."         extra JVM arguments for a child Sluice and the bare proxy,
                                              space separated, after the flags bin/sluice passes to
                                              'sluice serve' (sluice_jvm_flags in bin/lib/jdk.sh, run for
                                              this JDK); a later flag overrides an earlier one
              --nginx PATH                    nginx executable (default: PATH, /usr/sbin/nginx)
              --nginx-workers 2               nginx worker processes
              --client-threads 2              load generator event loops
              --upstream-threads 1            fake upstream event loops
              --out FILE                      also write the Markdown report to FILE
              --ledger-rows all               the observed Sluice's ledger.rows: all, not_answered or none
            """;

    public HarnessOptions {
        targets = List.copyOf(targets);
        java.util.Objects.requireNonNull(ledgerRows, "ledgerRows");
        connections = List.copyOf(connections);
        streaming = List.copyOf(streaming);
        rates = List.copyOf(rates);
        for (String t : targets) {
            if (!TARGETS.contains(t)) {
                throw new IllegalArgumentException("--targets: " + t + " (expected: one of " + TARGETS + ")");
            }
        }
        if (targets.isEmpty() || connections.isEmpty() || streaming.isEmpty() || rates.isEmpty()) {
            throw new IllegalArgumentException("targets, connections, modes and rates: empty (expected: at least one each)");
        }
        for (int c : connections) {
            if (c < 1) {
                throw new IllegalArgumentException("--connections: " + c + " (expected: >= 1)");
            }
        }
        for (double r : rates) {
            if (r < 0) {
                throw new IllegalArgumentException("--rate: " + r + " (expected: max or > 0)");
            }
        }
        if (promptChars < 0) {
            throw new IllegalArgumentException("--prompt-chars: " + promptChars + " (expected: >= 0)");
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds: " + rounds + " (expected: >= 1)");
        }
        if (prewarm.isNegative() || warmup.isNegative()) {
            throw new IllegalArgumentException("--prewarm, --warmup: " + prewarm.toSeconds() + ", " + warmup.toSeconds()
                    + " (expected: >= 0 each)");
        }
        if (nginxWorkers < 1 || clientThreads < 1 || upstreamThreads < 1) {
            throw new IllegalArgumentException("--nginx-workers, --client-threads, --upstream-threads: "
                    + nginxWorkers + ", " + clientThreads + ", " + upstreamThreads + " (expected: >= 1 each)");
        }
    }

    /** The defaults: everything at 64 and 256 connections, both forms, closed loop, 30 s pre-warm, 5 s + 10 s per run. */
    public static HarnessOptions defaults() {
        return parse(new String[0]);
    }

    /**
     * JVM arguments of the child JVMs, Sluice's and the bare proxy's alike, so that the two
     * run under the same flags; none when Sluice runs in this JVM.
     */
    public List<String> childJvmArgs() {
        return switch (sluice) {
            case SluiceServer.Launch.ChildJvm c -> c.jvmArgs();
            case SluiceServer.Launch.CliJar j -> j.jvmArgs();
            case SluiceServer.Launch.InProcess ip -> List.of();
        };
    }

    /**
     * The flags bin/sluice passes to {@code sluice serve} (read from bin/lib/jdk.sh, their one
     * place: {@link LauncherFlags}), then {@code extra}: a child JVM runs as users run Sluice.
     */
    static List<String> withLauncherFlags(List<String> extra) {
        List<String> flags = new java.util.ArrayList<>(LauncherFlags.forServe());
        flags.addAll(extra);
        return List.copyOf(flags);
    }

    /** Reads command line options over the defaults. */
    public static HarnessOptions parse(String[] args) {
        List<String> targets = TARGETS;
        List<Integer> connections = List.of(64, 256);
        List<Boolean> streaming = List.of(false, true);
        List<Double> rates = List.of(0.0);
        Duration prewarm = Duration.ofSeconds(30);
        Duration warmup = Duration.ofSeconds(5);
        Duration measure = Duration.ofSeconds(10);
        long maxRequests = 1_000_000;
        int rounds = 1;
        int promptChars = 0;
        boolean distinctPrompts = false;
        String sluice = "child";
        List<String> jvmArgs = List.of();
        Optional<Path> nginx = Optional.empty();
        int nginxWorkers = 2;
        int clientThreads = 2;
        int upstreamThreads = 1;
        Optional<Path> out = Optional.empty();
        LedgerSettings.Rows ledgerRows = LedgerSettings.Rows.ALL;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + ": no value (expected one)\n" + USAGE);
            }
            String v = args[++i];
            switch (name) {
                case "--targets" -> targets = split(v);
                case "--connections" -> connections = split(v).stream().map(s -> integer(name, s)).toList();
                case "--modes" -> streaming = split(v).stream().map(s -> switch (s) {
                    case "plain" -> false;
                    case "stream" -> true;
                    default -> throw new IllegalArgumentException("--modes: " + s + " (expected: plain or stream)");
                }).toList();
                case "--rate" -> rates = split(v).stream().map(s -> s.equals("max") ? 0.0 : (double) integer(name, s)).toList();
                case "--prewarm" -> prewarm = Duration.ofSeconds(integer(name, v));
                case "--warmup" -> warmup = Duration.ofSeconds(integer(name, v));
                case "--seconds" -> measure = Duration.ofSeconds(integer(name, v));
                case "--requests" -> maxRequests = integer(name, v);
                case "--rounds" -> rounds = integer(name, v);
                case "--prompt-chars" -> promptChars = integer(name, v);
                case "--prompts" -> distinctPrompts = switch (v) {
                    case "same" -> false;
                    case "distinct" -> true;
                    default -> throw new IllegalArgumentException("--prompts: " + v + " (expected: same or distinct)");
                };
                case "--sluice" -> sluice = v;
                case "--sluice-jvm-args" -> jvmArgs = Arrays.stream(v.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
                case "--nginx" -> nginx = Optional.of(Path.of(v));
                case "--nginx-workers" -> nginxWorkers = integer(name, v);
                case "--client-threads" -> clientThreads = integer(name, v);
                case "--upstream-threads" -> upstreamThreads = integer(name, v);
                case "--out" -> out = Optional.of(Path.of(v));
                case "--ledger-rows" -> ledgerRows = Arrays.stream(LedgerSettings.Rows.values())
                        .filter(r -> r.wireName().equals(v)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                                "--ledger-rows: " + v + " (expected: all, not_answered or none)"));
                default -> throw new IllegalArgumentException(name + ": unknown option\n" + USAGE);
            }
        }
        SluiceServer.Launch launch;
        if (sluice.equals("child")) {
            launch = new SluiceServer.Launch.ChildJvm(withLauncherFlags(jvmArgs));
        } else if (sluice.equals("in-process")) {
            launch = new SluiceServer.Launch.InProcess();
        } else if (sluice.startsWith("jar:")) {
            launch = new SluiceServer.Launch.CliJar(Path.of(sluice.substring(4)), withLauncherFlags(jvmArgs));
        } else {
            throw new IllegalArgumentException("--sluice: " + sluice + " (expected: child, in-process or jar:PATH)");
        }
        return new HarnessOptions(targets, connections, streaming, rates, prewarm, warmup, measure, maxRequests, rounds, promptChars, distinctPrompts, launch, nginx,
                nginxWorkers, clientThreads, upstreamThreads, out, ledgerRows);
    }

    private static List<String> split(String v) {
        List<String> out = new ArrayList<>();
        for (String s : v.split(",")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }

    private static int integer(String name, String v) {
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": " + v + " (expected: a whole number)", e);
        }
    }
}
