package dev.sluice.bench.ledger;

import dev.sluice.ledger.Ledger;
import dev.sluice.ledger.LedgerStats;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * How many rows a second the usage ledger writes: a gateway's traffic (200 keys of 20 tenants, each
 * key with its class and three quarters of its requests on its own route of 3, one request in ten
 * retried once, an hour of traffic) handed to a ledger at once, timed until {@code close()}
 * has committed the last batch, in wall time and in this process's CPU time (the figure that holds on
 * a shared machine; for PostgreSQL the server's own CPU is not in it). Each round writes to a new, empty database: an SQLite file in a
 * temporary directory, or a new PostgreSQL schema, dropped after. Default settings (flush interval,
 * batch size) but a buffer that holds the whole round, so nothing is dropped.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.sluice.bench.ledger.LedgerWriteBench \
 *     [--kind sqlite|postgres] [--requests 200000] [--rounds 3] [--batch 1000] [--url jdbc:postgresql://...]
 *     [--rows all|not_answered|none] [--grow]
 * </pre>
 *
 * <p>{@code --grow}: every round writes the next hour's traffic (other ids) into the same database
 * instead of a new one, so round {@code r} writes into a table that already holds {@code r - 1}
 * rounds of rows, as a long-running gateway's does (what an index on random keys costs grows with it).
 *
 * <p>{@code --rows} is {@code ledger.rows}: every request of this traffic is answered, so
 * {@code not_answered} writes as few rows as {@code none} (the rollups and one batch mark each).
 */
public final class LedgerWriteBench {

    private LedgerWriteBench() {}

    public static void main(String[] args) throws Exception {
        String kind = option(args, "--kind", "sqlite");
        int requests = Integer.parseInt(option(args, "--requests", "200000"));
        int rounds = Integer.parseInt(option(args, "--rounds", "3"));
        String url = option(args, "--url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        int batch = Integer.parseInt(option(args, "--batch", String.valueOf(LedgerSettings.DEFAULT_BATCH_SIZE)));
        LedgerSettings.Rows rows = LedgerSettings.Rows.valueOf(option(args, "--rows", "all").toUpperCase(Locale.ROOT));
        boolean grow = Arrays.asList(args).contains("--grow");
        List<RequestEvent> events = traffic(requests, 42);
        long attempts = events.stream().mapToLong(e -> e.attemptEvents().size()).sum();
        System.out.printf(Locale.ROOT, "ledger write, %s, rows %s%s: %d requests, %d attempts per round, "
                + "%d rounds%n", kind, rows.wireName(), grow ? ", one growing database" : "", requests, attempts, rounds);
        double[] rps = new double[rounds];
        String id = ProcessHandle.current().pid() + "_" + System.nanoTime() % 1_000_000;
        Path dir = kind.equals("postgres") ? null : Files.createTempDirectory("sluice-ledger-bench");
        try {
            for (int r = 0; r < rounds; r++) {
                String at = grow ? "grow" : String.valueOf(r);
                List<RequestEvent> round = grow && r > 0 ? traffic(requests, 42 + r, r * 3_600_000L) : events;
                rps[r] = round(kind, url, batch, rows, round, r, dir, "bench_ledger_" + id + "_" + at,
                        !grow || r == rounds - 1);
            }
        } finally {
            if (dir != null) {
                try (var files = Files.list(dir)) {
                    for (Path p : files.toList()) {
                        Files.delete(p);
                    }
                }
                Files.delete(dir);
            }
        }
        Arrays.sort(rps);
        System.out.printf(Locale.ROOT, "median: %,.0f rows/s%n", rps[rounds / 2]);
    }

    /** One round into {@code dir}'s file {@code name} or the schema {@code name}; dropped after when {@code last}. */
    private static double round(String kind, String url, int batch, LedgerSettings.Rows rows,
            List<RequestEvent> events, int round, Path dir, String name, boolean last)
            throws IOException, SQLException, InterruptedException {
        String schema = null;
        Path file = null;
        LedgerSettings settings;
        if (kind.equals("postgres")) {
            schema = name;
            settings = LedgerSettings.postgres(url, schema);
        } else {
            file = dir.resolve(name + ".db");
            settings = LedgerSettings.sqlite(file);
        }
        settings = settings.withBuffering(settings.flushInterval(), events.size(), batch).withRows(rows);
        try {
            Ledger ledger = Ledger.open(settings);
            WriterCpu writerCpu = new WriterCpu();
            writerCpu.start();
            long cpu0 = processCpuNanos();
            long start = System.nanoTime();
            for (RequestEvent e : events) {
                ledger.onRequest(e);
            }
            ledger.close();
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuSeconds = (processCpuNanos() - cpu0) / 1e9;
            double writerSeconds = writerCpu.finish() / 1e9;
            LedgerStats s = ledger.stats();
            if (s.recorded() != events.size() || s.unrecorded() != 0) {
                throw new IllegalStateException("not everything was recorded: " + s);
            }
            long written = s.recorded() + s.recordedAttempts();
            double rps = written / seconds;
            System.out.printf(Locale.ROOT, "round %d: %,d rows (%,d requests + %,d attempts) in %.2f s: %,.0f rows/s, "
                    + "%,.0f requests/s; writer thread CPU %.2f s: %,.0f rows per CPU second; process CPU %.2f s: "
                    + "%,.0f rows per CPU second; writer CPU %.1f us per request; load average %.1f%n", round + 1,
                    written, s.recorded(), s.recordedAttempts(), seconds, rps, s.recorded() / seconds, writerSeconds,
                    written / writerSeconds, cpuSeconds, written / cpuSeconds, writerSeconds * 1e6 / s.recorded(),
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            return rps;
        } finally {
            if (last && schema != null) {
                try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
                    st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                }
            }
            if (last && file != null) {
                try (var files = Files.list(dir)) {
                    for (Path p : files.toList()) {
                        Files.delete(p);
                    }
                }
            }
        }
    }

    /** {@code n} requests over one hour, seeded. */
    static List<RequestEvent> traffic(int n, long seed) {
        return traffic(n, seed, 0);
    }

    /** {@code n} requests over one hour, seeded, starting {@code laterMillis} after the first hour. */
    static List<RequestEvent> traffic(int n, long seed, long laterMillis) {
        SplittableRandom rnd = new SplittableRandom(seed);
        String[][] routes = {{"fast", "openai-east", "openai", "gpt-4o-mini"},
                {"big", "azure-west", "azure-openai", "gpt-4o"}, {"claude", "anthropic-main", "anthropic", "claude"}};
        String[] classes = {"interactive", "interactive", "interactive", "batch", "background"};
        long t0 = 1_772_446_500_000L + laterMillis;
        List<RequestEvent> out = new ArrayList<>(n);
        HexFormat hex = HexFormat.of();
        // As a gateway has them: one caller per configured key and one scope map per deployment, the
        // same objects in every event (not a new string or map per request).
        Caller[] callers = new Caller[200];
        for (int k = 0; k < callers.length; k++) {
            int t = k / 10;
            callers[k] = new Caller("org", "tenant-" + t, "tenant-" + t + "/team", "key-" + k);
        }
        Map<String, String> scope = Map.of("region", "eastus");
        for (int i = 0; i < n; i++) {
            int tenant = rnd.nextInt(20);
            int key = tenant * 10 + rnd.nextInt(10);
            // As keys are configured: each has its class, and sends most requests to one profile.
            String[] route = routes[rnd.nextInt(4) == 0 ? rnd.nextInt(routes.length) : key % routes.length];
            String trafficClass = classes[key % classes.length];
            long at = t0 + (long) i * 3_600_000L / n;
            long estIn = 200 + rnd.nextInt(4_000);
            long estOut = 100 + rnd.nextInt(1_000);
            long in = Math.max(1, estIn + rnd.nextInt(200) - 100);
            long outTokens = rnd.nextInt((int) estOut);
            long cache = route[2].equals("anthropic") ? rnd.nextInt(2_000) : 0;
            String trace = hex.formatHex(longBytes(rnd.nextLong())) + hex.formatHex(longBytes(i));
            String span = hex.formatHex(longBytes(rnd.nextLong()));
            TokenCounts estimate = new TokenCounts(estIn, estOut, 0);
            TokenCounts usage = new TokenCounts(in, outTokens, cache);
            List<AttemptEvent> attempts = new ArrayList<>(2);
            boolean retried = rnd.nextInt(10) == 0;
            if (retried) {
                attempts.add(new AttemptEvent(trace, 1, route[1], route[2], route[3], scope, at, AttemptResult.THROTTLED,
                        429, "rate_limited", Optional.of("input_tpm"), OptionalLong.of(1_000 + rnd.nextInt(5_000)),
                        estimate, TokenCounts.NONE, true, true, Settlement.HELD, 20_000_000, OptionalLong.empty(),
                        OptionalLong.of(1_000)));
            }
            attempts.add(new AttemptEvent(trace, attempts.size() + 1, route[1], route[2], route[3], scope, at + 5,
                    AttemptResult.ANSWERED, 200, "ok", Optional.empty(), OptionalLong.empty(), estimate, usage, true,
                    !route[2].equals("anthropic"), Settlement.SETTLED, 800_000_000, OptionalLong.of(200_000_000),
                    OptionalLong.empty()));
            out.add(new RequestEvent(trace, span, at, "openai.chat",
                    Optional.of(callers[key]),
                    Optional.of(route[0]), Optional.of(trafficClass), Optional.of(route[1]),
                    Optional.of(route[2]), Optional.of(route[3]), scope, rnd.nextBoolean(), estimate, usage, true,
                    "admitted", Optional.empty(), Optional.empty(), Optional.empty(), 0, Optional.of("normal"), false,
                    rnd.nextInt(5) == 0, attempts.size(), Optional.empty(), 200, OptionalLong.empty(), 850_000_000,
                    OptionalLong.of(210_000_000), attempts));
        }
        return out;
    }

    /**
     * CPU time of the ledger's writer thread, read every millisecond while it lives (a dead thread
     * has none to read): at most the last millisecond is missed.
     */
    static final class WriterCpu extends Thread {
        private final java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        private volatile boolean done;
        private volatile long last;

        WriterCpu() {
            super("writer-cpu");
            setDaemon(true);
        }

        @Override
        public void run() {
            long id = -1;
            while (!done) {
                if (id < 0) {
                    for (Thread t : Thread.getAllStackTraces().keySet()) {
                        if (t.getName().equals("sluice-ledger-writer") && t.isAlive()) {
                            id = t.threadId();
                        }
                    }
                }
                long cpu = id < 0 ? -1 : mx.getThreadCpuTime(id);
                if (cpu > 0) {
                    last = cpu;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        }

        long finish() throws InterruptedException {
            done = true;
            join();
            return last;
        }
    }

    /** CPU time of this whole process (writer, SQLite's native code, GC, the JIT), all threads. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static byte[] longBytes(long v) {
        return java.nio.ByteBuffer.allocate(8).putLong(v).array();
    }

    static String option(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }
}
