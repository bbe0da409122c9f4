package dev.sluice.ledger;

import dev.sluice.ledger.db.Database;
import dev.sluice.ledger.db.LedgerStore;
import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.event.RequestEvent;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/** The ledger on SQLite or PostgreSQL: a bounded buffer, one writer thread, the store. */
final class JdbcLedger implements Ledger {

    /** A clean stop waits this long at most for an unreachable database before it counts the rest as lost. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
    /** Rows one retention step deletes from a table at most: a short transaction, a short pause for writes. */
    static final int RETENTION_BATCH = 5_000;

    private final EventBuffer buffer;
    private final LedgerWriter.Counters counters = new LedgerWriter.Counters();
    private final LedgerWriter writer;
    private final Thread thread;
    private final BatchWriter out;
    private final int batchSize;
    private final Optional<LedgerQueries> queries;
    private final Thread shutdownHook;
    private final Duration closeTimeout;
    private volatile boolean closed;

    JdbcLedger(LedgerSettings settings, BatchWriter out, Clock clock, Optional<LedgerQueries> queries, String where) {
        this(settings, out, clock, queries, where, CLOSE_TIMEOUT);
    }

    JdbcLedger(LedgerSettings settings, BatchWriter out, Clock clock, Optional<LedgerQueries> queries, String where,
            Duration closeTimeout) {
        this.closeTimeout = closeTimeout;
        this.buffer = new EventBuffer(settings.bufferSize());
        this.out = out;
        this.batchSize = settings.batchSize();
        this.queries = queries;
        this.writer = new LedgerWriter(buffer, out, counters, clock, settings.flushInterval(), batchSize, where);
        this.thread = new Thread(writer, "sluice-ledger-writer");
        thread.setDaemon(true);
        thread.start();
        // A JVM stopped by a signal (not kill -9) still writes what it buffered.
        this.shutdownHook = new Thread(this::close, "sluice-ledger-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    static JdbcLedger open(LedgerSettings settings) {
        return open(settings, Clock.systemUTC(), writerId());
    }

    static JdbcLedger open(LedgerSettings settings, Clock clock, String writerId) {
        Database db = Database.of(settings);
        LedgerStore store = new LedgerStore(db, writerId, settings.rows());
        try {
            store.migrate();
        } catch (SQLException | RuntimeException e) {
            store.close();
            throw new LedgerException("ledger: cannot open " + db.describe() + ": " + e.getMessage(), e);
        }
        BatchWriter out = new BatchWriter() {
            @Override
            public LedgerStore.WriteResult write(List<RequestEvent> batch) throws SQLException {
                return store.write(batch);
            }

            @Override
            public int retentionStep(long nowMillis) throws SQLException {
                return store.deleteExpired(nowMillis, settings.retention(), settings.rollupRetention(),
                        RETENTION_BATCH);
            }

            @Override
            public void finish() throws SQLException {
                store.checkpoint();
            }

            @Override
            public void close() {
                store.close();
            }
        };
        return new JdbcLedger(settings, out, clock, Optional.of(LedgerQueries.of(db, clock)), db.describe());
    }

    /** This process among the ledger's writers: its pid and a random part (a restarted pid is another writer). */
    static String writerId() {
        byte[] r = new byte[3];
        ThreadLocalRandom.current().nextBytes(r);
        return ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(r);
    }

    @Override
    public void onRequest(RequestEvent event) {
        try {
            if (closed || event == null) {
                counters.unrecorded.incrementAndGet();
                return;
            }
            int size = buffer.offer(event);
            if (size < 0) {
                counters.unrecorded.incrementAndGet();
            } else if (size == batchSize) {
                LockSupport.unpark(thread);
            }
            if (closed) {
                countLeftBehind(); // close() may have drained for the last time before this offer
            }
        } catch (RuntimeException e) {
            counters.unrecorded.incrementAndGet(); // never into the request's thread
        }
    }

    @Override
    public LedgerStats stats() {
        return new LedgerStats(counters.recorded.get(), counters.recordedAttempts.get(), counters.duplicates.get(),
                counters.unrecorded.get(), buffer.size(), counters.failedWrites.get(), counters.lastWriteLagMillis);
    }

    @Override
    public Optional<LedgerQueries> queries() {
        return queries;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        writer.stop(System.nanoTime() + closeTimeout.toNanos());
        LockSupport.unpark(thread);
        // No time limit here: a long backlog is written to its end. The writer ends by itself: a
        // batch still failing at the close timeout is given up and counted, and every driver call
        // is bounded (SQLite's busy timeout, PostgreSQL's socket timeout).
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        countLeftBehind();
        out.close();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: this is the hook
        }
    }

    /** Events that reached the buffer after the writer's last drain: counted, not lost silently. */
    private void countLeftBehind() {
        if (thread.isAlive()) {
            return;
        }
        List<RequestEvent> rest = new ArrayList<>();
        int n;
        while ((n = buffer.drainTo(rest, 1024)) > 0) {
            counters.unrecorded.addAndGet(n);
            rest.clear();
        }
    }
}
