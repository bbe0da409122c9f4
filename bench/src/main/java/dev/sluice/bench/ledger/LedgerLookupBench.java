package dev.sluice.bench.ledger;

import dev.sluice.ledger.db.Database;
import dev.sluice.ledger.db.Migrations;
import dev.sluice.runtime.config.LedgerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;

/**
 * What migration 9 (request rows keyed by arrival) costs on a ledger that already holds rows, and
 * what a look-up by trace id costs without an index on it: a database at schema 8 filled with
 * {@code --rows} request rows (random ids, one every 3 ms, by the database's own SQL), migrated to
 * the latest schema, then a trace id that is not there looked for over the last hour and over 20
 * minutes (what {@code LedgerQueries.request} reads when it finds nothing: every key entry of the
 * span). Wall time; the database runs in this process (SQLite) or is the local server (PostgreSQL).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.sluice.bench.ledger.LedgerLookupBench [--kind sqlite|postgres] [--rows 1000000]
 * </pre>
 */
public final class LedgerLookupBench {

    private static final long T0 = 1_772_446_500_000L;
    private static final String COLUMNS = "trace_id, span_id, received_at, operation, org, tenant, team, api_key, "
            + "profile, traffic_class, deployment, provider, provider_model, provider_scope, streaming, estimated_input, "
            + "estimated_output, estimated_cache_read, input_tokens, output_tokens, cache_read_tokens, usage_reported, "
            + "decision, queue_wait_ns, mode, brownout, borrowed, attempts, status, latency_ns, ttft_ns, writer";
    private static final String VALUES = "'openai.chat', 'org', 'tenant-' || (i % 20), 'team', 'key-' || (i % 200), "
            + "'fast', 'interactive', 'openai-east', 'openai', 'gpt-4o-mini', '{\"region\":\"eastus\"}', 0, 1000, 500, 0, "
            + "990, 400, 0, 1, 'admitted', 0, 'normal', 0, 0, 1, 200, 850000000, 210000000, 'w'";

    private LedgerLookupBench() {}

    public static void main(String[] args) throws Exception {
        String kind = LedgerWriteBench.option(args, "--kind", "sqlite");
        int rows = Integer.parseInt(LedgerWriteBench.option(args, "--rows", "1000000"));
        String url = LedgerWriteBench.option(args, "--url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        Path dir = kind.equals("postgres") ? null : Files.createTempDirectory("sluice-lookup-bench");
        String schema = "bench_lookup_" + ProcessHandle.current().pid();
        LedgerSettings settings = dir == null ? LedgerSettings.postgres(url, schema)
                : LedgerSettings.sqlite(dir.resolve("ledger.db"));
        Database db = Database.of(settings);
        try (Connection c = db.connect()) {
            Migrations.migrate(c, db.dialect(), db.schema(), 8);
            long t0 = System.nanoTime();
            try (Statement s = c.createStatement()) {
                if (dir == null) {
                    s.execute("INSERT INTO requests (" + COLUMNS + ") SELECT md5(random()::text), "
                            + "substr(md5(random()::text), 1, 16), " + T0 + " + i * 3, " + VALUES
                            + " FROM generate_series(0, " + (rows - 1) + ") i");
                    s.execute("ANALYZE requests");
                } else {
                    s.execute("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < " + (rows - 1)
                            + ") INSERT INTO requests (" + COLUMNS + ") SELECT lower(hex(randomblob(16))), "
                            + "lower(hex(randomblob(8))), " + T0 + " + i * 3, " + VALUES + " FROM n");
                }
            }
            System.out.printf(Locale.ROOT, "%s: %,d request rows at schema 8 written in %.1f s%n", kind, rows,
                    (System.nanoTime() - t0) / 1e9);
            t0 = System.nanoTime();
            int v = Migrations.migrate(c, db.dialect(), db.schema());
            System.out.printf(Locale.ROOT, "migrated to %d in %.2f s; load average %.1f%n", v,
                    (System.nanoTime() - t0) / 1e9, load());
            if (dir == null) {
                try (Statement s = c.createStatement()) {
                    s.execute("ANALYZE requests");
                }
            }
            long last = T0 + 3L * (rows - 1);
            for (int round = 1; round <= 3; round++) {
                lookUp(c, "the last hour", last - 3_600_000L, last + 600_000L);
                lookUp(c, "20 minutes", last - 1_200_000L, last);
            }
        } finally {
            if (dir == null) {
                try (Connection c = java.sql.DriverManager.getConnection(url); Statement s = c.createStatement()) {
                    s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                }
            } else {
                try (var files = Files.list(dir)) {
                    for (Path p : files.toList()) {
                        Files.delete(p);
                    }
                }
                Files.delete(dir);
            }
        }
    }

    /** The look-up of {@code RequestLookup}, for a trace id that is not there: the span's every key entry. */
    private static void lookUp(Connection c, String what, long from, long to) throws Exception {
        long t0 = System.nanoTime();
        long entries;
        try (PreparedStatement s = c.prepareStatement("SELECT span_id FROM requests WHERE received_at BETWEEN ? AND ? "
                + "AND trace_id = ? ORDER BY received_at DESC, span_id DESC")) {
            s.setMaxRows(1);
            s.setLong(1, from);
            s.setLong(2, to);
            s.setString(3, "ffffffffffffffffffffffffffffffff");
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    throw new IllegalStateException("found a trace id that is not there");
                }
            }
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM requests WHERE received_at BETWEEN ? AND ?")) {
            s.setLong(1, from);
            s.setLong(2, to);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                entries = r.getLong(1);
            }
        }
        System.out.printf(Locale.ROOT, "look-up over %s (%,d requests): %.1f ms%n", what, entries, ms);
    }

    private static double load() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
