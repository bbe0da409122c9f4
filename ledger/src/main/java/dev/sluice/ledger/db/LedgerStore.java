package dev.sluice.ledger.db;

import dev.sluice.runtime.config.LedgerSettings.Rows;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.RequestEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The writing side of the ledger: one connection, used by one thread. A batch is one transaction:
 * its request rows, their attempt rows and what they add to the rollups. Writing is idempotent on
 * the rows' unique keys, (arrival, trace id, span id) and (start, trace id, span id, attempt): a
 * batch written again after a failure whose commit may or may not have happened, or by two replicas,
 * adds every request exactly once (the same event has the same arrival and starts, however often it
 * is written).
 *
 * <p>Requests {@link Rows} does not keep have no row to collide on; the batch's part of them is
 * marked instead, by a row of {@code batches_written} whose key is the sum of their ids' hashes
 * ({@link #batchKey}): the same requests written again, in any order, add nothing. A batch replayed
 * with other boundaries would count them again: the writer tries a failed batch again whole.
 */
public final class LedgerStore implements AutoCloseable {

    /**
     * What one batch did.
     *
     * @param inserted requests newly written (in the rollups, and in a row where {@link Rows} keeps one)
     * @param duplicates requests of the batch written before, by an earlier try or another writer
     * @param attempts attempts newly recorded: in rows of their own, or in their request's row when
     *     it made one (migration 10)
     */
    public record WriteResult(int inserted, int duplicates, int attempts) {}

    /**
     * The order of the request rows' unique key (arrival, trace id, span id): inserts in it land at
     * the index's right edge, and writers that meet on a key wait for each other, never in a cycle.
     */
    private static final Comparator<RequestEvent> KEY = (a, b) -> {
        int c = Long.compare(a.receivedAtEpochMillis(), b.receivedAtEpochMillis());
        if (c != 0) {
            return c;
        }
        c = a.traceId().compareTo(b.traceId());
        return c != 0 ? c : a.spanId().compareTo(b.spanId());
    };

    private final Database db;
    private final String writer;
    private final Rows rows;
    private Connection connection;
    /**
     * By equality (a scope map of a label or two hashes in a few nanoseconds, and the lifecycle's are
     * one map per deployment, found at once by identity): a scope's JSON is made once, not per row.
     */
    private final java.util.Map<java.util.Map<String, String>, String> scopeJson = new java.util.HashMap<>();

    /**
     * @param writer this process's name in the rollup keys (its own rows, never another replica's)
     */
    public LedgerStore(Database db, String writer) {
        this(db, writer, Rows.ALL);
    }

    /**
     * @param writer this process's name in the rollup keys (its own rows, never another replica's)
     * @param rows which requests get their own rows; all are summed in the rollups
     */
    public LedgerStore(Database db, String writer, Rows rows) {
        this.db = Objects.requireNonNull(db, "db");
        this.writer = Objects.requireNonNull(writer, "writer");
        this.rows = Objects.requireNonNull(rows, "rows");
    }

    /** Brings the schema to the latest version (see {@link Migrations}); returns it. */
    public int migrate() throws SQLException {
        return Migrations.migrate(connection(), db.dialect(), db.schema());
    }

    /**
     * Writes {@code batch} in one transaction. On an exception nothing of it is kept and the
     * connection is dropped; the caller may write the same batch again.
     */
    public WriteResult write(List<RequestEvent> batch) throws SQLException {
        if (batch.isEmpty()) {
            return new WriteResult(0, 0, 0);
        }
        // One order for every writer: inserts that meet on a key wait for each other, never in a cycle.
        List<RequestEvent> withRows = new ArrayList<>(batch.size());
        List<RequestEvent> withoutRows = new ArrayList<>();
        for (RequestEvent e : batch) {
            (rows.keeps(e.status()) ? withRows : withoutRows).add(e);
        }
        withRows.sort(KEY);
        Connection c = connection();
        try {
            c.setAutoCommit(false);
            Rollups.Batch rollups = new Rollups.Batch(writer);
            int inserted = 0;
            int attempts = 0;
            if (!withRows.isEmpty()) {
                RowsWritten written = writeRows(c, withRows, rollups);
                inserted = written.requests();
                attempts = written.attempts();
            }
            if (!withoutRows.isEmpty() && markWritten(c, withoutRows)) {
                withoutRows.forEach(rollups::add);
                inserted += withoutRows.size();
            }
            rollups.write(c, db.dialect());
            c.commit();
            // Back to auto-commit: SQLite's driver would otherwise begin the next (write-locking) transaction at once.
            c.setAutoCommit(true);
            return new WriteResult(inserted, batch.size() - inserted, attempts);
        } catch (SQLException | RuntimeException e) {
            reset();
            throw e;
        }
    }

    /**
     * Inserts the rows of {@code sorted} (in key order) and their attempts' rows (a request's one
     * attempt on its own deployment is in the request's row instead), and sums in {@code rollups}
     * the requests whose rows were new; returns how many requests and attempts were recorded.
     */
    private RowsWritten writeRows(Connection c, List<RequestEvent> sorted, Rollups.Batch rollups) throws SQLException {
        int inserted = 0;
        int attempts = 0;
        int attemptRows = 0;
        int[] counts;
        try (PreparedStatement s = c.prepareStatement(EventRows.INSERT_REQUEST)) {
            for (RequestEvent e : sorted) {
                EventRows.bindRequest(s, e, writer, scopeJson);
                s.addBatch();
            }
            counts = s.executeBatch();
        }
        try (PreparedStatement s = c.prepareStatement(EventRows.INSERT_ATTEMPT)) {
            for (int i = 0; i < sorted.size(); i++) {
                if (counts[i] == 0) {
                    continue; // already recorded: by an earlier try of this batch, or another replica
                }
                if (counts[i] != 1) {
                    throw new SQLException("ledger: the driver reported " + counts[i]
                            + " rows for one insert (expected 0 or 1)");
                }
                RequestEvent e = sorted.get(i);
                inserted++;
                rollups.add(e);
                if (EventRows.folds(e)) {
                    attempts++; // in the request's own row
                    continue;
                }
                for (AttemptEvent a : e.attemptEvents()) {
                    EventRows.bindAttempt(s, e, a, scopeJson);
                    s.addBatch();
                    attempts++;
                    attemptRows++;
                }
            }
            if (attemptRows > 0) {
                s.executeBatch();
            }
        }
        return new RowsWritten(inserted, attempts);
    }

    private record RowsWritten(int requests, int attempts) {}

    /**
     * Marks {@code events} (requests without rows) as written; false when they were already, by an
     * earlier try of this batch or by another replica.
     */
    private boolean markWritten(Connection c, List<RequestEvent> events) throws SQLException {
        long newest = 0;
        for (RequestEvent e : events) {
            newest = Math.max(newest, e.receivedAtEpochMillis());
        }
        try (PreparedStatement s = c.prepareStatement(
                "INSERT INTO batches_written (batch, received_at, requests, writer) VALUES (?, ?, ?, ?) "
                        + "ON CONFLICT (batch) DO NOTHING")) {
            s.setLong(1, batchKey(events));
            s.setLong(2, newest);
            s.setInt(3, events.size());
            s.setString(4, writer);
            return s.executeUpdate() == 1;
        }
    }

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    /**
     * A batch's key: the sum of each request's FNV-1a 64-bit hash (over UTF-16 units, low byte first)
     * of its trace id, a separator and its span id. A sum, so the order of the requests does not
     * change it.
     */
    static long batchKey(List<RequestEvent> events) {
        long sum = 0;
        for (RequestEvent e : events) {
            long h = fnv(FNV_OFFSET, e.traceId());
            h = (h ^ '/') * FNV_PRIME;
            sum += fnv(h, e.spanId());
        }
        return sum;
    }

    private static long fnv(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            h = (h ^ (ch & 0xff)) * FNV_PRIME;
            h = (h ^ (ch >>> 8)) * FNV_PRIME;
        }
        return h;
    }

    /**
     * One bounded step of retention: deletes at most {@code limit} rows from each table that has
     * rows past its age (requests, attempts and batch marks older than {@code rows}, hourly rollups older than
     * {@link Grain#HOURLY_RETENTION} or {@code rollups} if sooner, daily rollups older than
     * {@code rollups}), each table in its own short transaction. Returns how many rows went; the
     * caller steps again while that is not 0, between batches.
     */
    public int deleteExpired(long nowMillis, Duration rows, Duration rollups, int limit) throws SQLException {
        Connection c = connection();
        c.setAutoCommit(true);
        long rowCutoff = nowMillis - rows.toMillis();
        long hourCutoff = (nowMillis - Math.min(rollups.toMillis(), Grain.HOURLY_RETENTION.toMillis())) / 1000;
        long dayCutoff = (nowMillis - rollups.toMillis()) / 1000;
        int deleted = 0;
        try {
            deleted += delete(c, "requests", "received_at < ?", rowCutoff, limit);
            deleted += delete(c, "attempts", "started_at < ?", rowCutoff, limit);
            deleted += delete(c, "batches_written", "received_at < ?", rowCutoff, limit);
            for (Rollups.Table t : Rollups.ALL) {
                deleted += delete(c, t.name(), "grain = 'h' AND period_start < ?", hourCutoff, limit);
                deleted += delete(c, t.name(), "grain = 'd' AND period_start < ?", dayCutoff, limit);
            }
        } catch (SQLException | RuntimeException e) {
            reset();
            throw e;
        }
        return deleted;
    }

    private int delete(Connection c, String table, String condition, long cutoff, int limit) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(db.dialect().deleteOldest(table, condition))) {
            s.setLong(1, cutoff);
            s.setInt(2, limit);
            return s.executeUpdate();
        }
    }

    /** Drops the connection (after a failure); the next call opens another. */
    public void reset() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // it is being dropped because it failed
            }
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            connection = db.connect();
        }
        return connection;
    }

    /** SQLite: folds the write-ahead log back into the file, so a clean stop leaves one file. */
    public void checkpoint() throws SQLException {
        if (db.dialect() == Dialect.SQLITE) {
            try (Statement s = connection().createStatement()) {
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            }
        }
    }

    @Override
    public void close() {
        reset();
    }
}
