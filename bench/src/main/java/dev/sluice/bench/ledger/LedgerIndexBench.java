package dev.sluice.bench.ledger;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.sqlite.SQLiteConfig;

/**
 * What a row's unique key costs SQLite: rows shaped like the ledger's request rows (trace and span
 * ids of random hex, a time, 20 text and 25 integer columns), inserted in transactions of 5,000
 * as the ledger's writer does, with the connection settings of {@code Database}, under three
 * layouts of the key. Timed in this thread's CPU (SQLite runs on it, through JNI).
 *
 * <ul>
 *   <li>{@code trace-key}: the request rows until migration 9, primary key (trace_id, span_id) and
 *       an index on the time; a random key, so each batch dirties pages all over the key's index.</li>
 *   <li>{@code time-key}: a unique index on (received_at, trace_id, span_id) instead (the request
 *       rows since migration 9): the same exactly-once guarantee for a replayed batch (its rows have
 *       the same times), and inserts land at the index's right edge. No index finds a row by its
 *       trace id alone.</li>
 *   <li>{@code time-key+hash}: the unique index led by time, and an index on a 64-bit hash of the
 *       trace id (a column of its own) to find a row by its trace id alone: random again, but an
 *       entry of about 16 bytes instead of about 60, so the index has a quarter of the pages.</li>
 *   <li>{@code no-key}: neither, for the cost of the row itself.</li>
 * </ul>
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.sluice.bench.ledger.LedgerIndexBench [--rows 100000] [--rounds 3]
 *     [--layouts trace-key,time-key,time-key+hash,no-key]
 * </pre>
 */
public final class LedgerIndexBench {

    private static final int TEXTS = 20;
    private static final int NUMBERS = 25;
    private static final int BATCH = 5_000;

    private LedgerIndexBench() {}

    public static void main(String[] args) throws Exception {
        int rows = Integer.parseInt(LedgerWriteBench.option(args, "--rows", "100000"));
        int rounds = Integer.parseInt(LedgerWriteBench.option(args, "--rounds", "3"));
        List<String> layouts = List.of(LedgerWriteBench.option(args, "--layouts", "trace-key,time-key,time-key+hash,no-key")
                .split(","));
        for (String layout : layouts) {
            run(layout, rows, rounds);
        }
    }

    private static void run(String layout, int rows, int rounds) throws Exception {
        Path dir = Files.createTempDirectory("sluice-index-bench");
        Path file = dir.resolve("ledger.db");
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        config.setCacheSize(-65_536);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (Connection c = config.createConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
            StringBuilder cols = new StringBuilder();
            for (int i = 0; i < TEXTS + NUMBERS; i++) {
                cols.append(", c").append(i).append(i < TEXTS ? " TEXT" : " BIGINT");
            }
            String key = layout.equals("trace-key") ? ", PRIMARY KEY (trace_id, span_id)" : "";
            boolean hashed = layout.equals("time-key+hash");
            st.execute("CREATE TABLE r (trace_id TEXT NOT NULL, span_id TEXT NOT NULL, received_at BIGINT NOT NULL"
                    + cols + (hashed ? ", trace_hash BIGINT NOT NULL" : "") + key + ")");
            switch (layout) {
                case "trace-key" -> st.execute("CREATE INDEX r_at ON r (received_at)");
                case "time-key" -> st.execute("CREATE UNIQUE INDEX r_key ON r (received_at, trace_id, span_id)");
                case "time-key+hash" -> {
                    st.execute("CREATE UNIQUE INDEX r_key ON r (received_at, trace_id, span_id)");
                    st.execute("CREATE INDEX r_trace ON r (trace_hash)");
                }
                case "no-key" -> st.execute("CREATE INDEX r_at ON r (received_at)");
                default -> throw new IllegalArgumentException("layout: " + layout);
            }
            String insert = "INSERT INTO r VALUES (" + String.join(", ",
                    Collections.nCopies(3 + TEXTS + NUMBERS + (hashed ? 1 : 0), "?")) + ") ON CONFLICT DO NOTHING";
            SplittableRandom rnd = new SplittableRandom(1);
            HexFormat hex = HexFormat.of();
            String[] texts = new String[TEXTS];
            for (int i = 0; i < TEXTS; i++) {
                texts[i] = "value-" + i;
            }
            long at = 1_772_446_500_000L;
            for (int round = 1; round <= rounds; round++) {
                long cpu = 0;
                for (int b = 0; b < rows / BATCH; b++) {
                    List<String[]> ids = new ArrayList<>(BATCH);
                    for (int i = 0; i < BATCH; i++) {
                        ids.add(new String[] {hex.toHexDigits(rnd.nextLong()) + hex.toHexDigits(rnd.nextLong()),
                                hex.toHexDigits(rnd.nextLong())});
                    }
                    if (layout.equals("trace-key")) {
                        ids.sort(Comparator.comparing((String[] id) -> id[0])); // as the writer sorts its batch
                    } // the others are in time order already, the order of their key
                    long t0 = mx.getCurrentThreadCpuTime();
                    c.setAutoCommit(false);
                    try (PreparedStatement s = c.prepareStatement(insert)) {
                        for (String[] id : ids) {
                            s.setString(1, id[0]);
                            s.setString(2, id[1]);
                            s.setLong(3, at++);
                            for (int j = 0; j < TEXTS; j++) {
                                s.setString(4 + j, texts[(int) ((j + at) % TEXTS)]);
                            }
                            for (int j = 0; j < NUMBERS; j++) {
                                s.setLong(4 + TEXTS + j, rnd.nextInt(100_000));
                            }
                            if (hashed) {
                                s.setLong(4 + TEXTS + NUMBERS, Long.parseUnsignedLong(id[0], 0, 16, 16));
                            }
                            s.addBatch();
                        }
                        s.executeBatch();
                    }
                    c.commit();
                    c.setAutoCommit(true);
                    cpu += mx.getCurrentThreadCpuTime() - t0;
                }
                System.out.printf(Locale.ROOT, "%s round %d: %,d rows in the table, %.1f us CPU per row inserted; "
                        + "load average %.1f%n", layout, round, (long) round * (rows / BATCH) * BATCH, cpu / 1e3 / rows,
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }
}
