package dev.sluice.ledger;

import dev.sluice.ledger.db.LedgerStore;
import dev.sluice.runtime.event.RequestEvent;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's one writer thread. It wakes at every flush interval (or at once when a batch is
 * full), writes everything buffered in batches, then spends what is left of the interval on
 * retention. An event is therefore written at most one flush interval (plus the writing of what
 * was ahead of it) after it was buffered: that is all a {@code kill -9} can lose.
 *
 * <p>A failed batch is tried again, with a growing pause, until it is written: writes are
 * idempotent, so a batch whose commit was lost in transit is not counted twice. Meanwhile the
 * buffer fills and what does not fit is counted as unrecorded, never waited for.
 */
final class LedgerWriter implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.ledger");

    /** Retention looks for old rows this often; when it finds some it goes on at every interval. */
    static final Duration RETENTION_EVERY = Duration.ofMinutes(10);
    /** A log line about unrecorded events or failures at most this often. */
    static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** Counters shared with the sink; written by the writer except {@code unrecorded}. */
    static final class Counters {
        final AtomicLong recorded = new AtomicLong();
        final AtomicLong recordedAttempts = new AtomicLong();
        final AtomicLong duplicates = new AtomicLong();
        final AtomicLong unrecorded = new AtomicLong();
        final AtomicLong failedWrites = new AtomicLong();
        volatile long lastWriteLagMillis;
    }

    private final EventBuffer buffer;
    private final BatchWriter out;
    private final Counters counters;
    private final Clock clock;
    private final long flushNanos;
    private final int batchSize;
    private final String where;

    private volatile boolean stopping;
    private volatile long stopDeadlineNanos = Long.MAX_VALUE;
    private long nextRetentionNanos;
    private boolean gaveUp;
    private long lastLogNanos = System.nanoTime() - LOG_EVERY_NANOS;
    private long unrecordedLogged;

    LedgerWriter(EventBuffer buffer, BatchWriter out, Counters counters, Clock clock, Duration flushInterval,
            int batchSize, String where) {
        this.buffer = buffer;
        this.out = out;
        this.counters = counters;
        this.clock = clock;
        this.flushNanos = flushInterval.toNanos();
        this.batchSize = batchSize;
        this.where = where;
        // The first look a little after start, so that a start is not slowed by a large deletion.
        this.nextRetentionNanos = System.nanoTime() + Math.min(TimeUnit.SECONDS.toNanos(5), 20 * flushNanos);
    }

    /** Asks the loop to write what is buffered and end; a batch still failing at {@code deadline} is given up. */
    void stop(long deadlineNanos) {
        stopDeadlineNanos = deadlineNanos;
        stopping = true;
    }

    @Override
    public void run() {
        List<RequestEvent> batch = new ArrayList<>(batchSize);
        long nextFlush = System.nanoTime() + flushNanos;
        while (true) {
            boolean last = stopping;
            long wait = nextFlush - System.nanoTime();
            if (!last && wait > 0 && buffer.size() < batchSize) {
                LockSupport.parkNanos(this, wait);
                continue;
            }
            nextFlush = System.nanoTime() + flushNanos;
            // What is there now, batch by batch; what arrives meanwhile waits for the next round.
            int present = buffer.size();
            while (present > 0) {
                int n = buffer.drainTo(batch, Math.min(batchSize, present));
                if (n == 0) {
                    break;
                }
                present -= n;
                write(batch);
                batch.clear();
            }
            logUnrecorded();
            if (last) {
                if (buffer.size() == 0) {
                    break;
                }
                continue;
            }
            retention(nextFlush);
        }
        try {
            out.finish();
        } catch (Exception e) {
            LOG.warn("ledger: could not tidy {} at stop: {}", where, e.toString());
        }
        logUnrecorded();
    }

    private void write(List<RequestEvent> batch) {
        if (gaveUp) {
            counters.unrecorded.addAndGet(batch.size());
            return;
        }
        long backoff = FIRST_BACKOFF_NANOS;
        while (true) {
            try {
                LedgerStore.WriteResult r = out.write(batch);
                counters.recorded.addAndGet(r.inserted());
                counters.duplicates.addAndGet(r.duplicates());
                counters.recordedAttempts.addAndGet(r.attempts());
                counters.lastWriteLagMillis = lag(batch);
                return;
            } catch (RuntimeException e) {
                // Not the database: the same batch would fail the same way. Said, counted, dropped.
                counters.unrecorded.addAndGet(batch.size());
                LOG.error("ledger: {} requests not recorded: {}", batch.size(), e.toString(), e);
                return;
            } catch (Exception e) {
                counters.failedWrites.incrementAndGet();
                if (stopping && System.nanoTime() - stopDeadlineNanos >= 0) {
                    gaveUp = true;
                    counters.unrecorded.addAndGet(batch.size());
                    LOG.error("ledger: {} requests not recorded at stop, {} still failing: {}", batch.size(), where,
                            describe(e));
                    return;
                }
                long now = System.nanoTime();
                if (now - lastLogNanos >= LOG_EVERY_NANOS) {
                    lastLogNanos = now;
                    LOG.warn("ledger: writing to {} failed, trying again ({} failures so far, {} requests waiting): {}",
                            where, counters.failedWrites.get(), buffer.size() + batch.size(), describe(e));
                }
                LockSupport.parkNanos(this, Math.min(backoff, Math.max(1, stopDeadlineNanos - now)));
                backoff = Math.min(MAX_BACKOFF_NANOS, backoff * 2);
                logUnrecorded();
            }
        }
    }

    /** Retention steps while the interval has time left for them (half of it), none if nothing is due. */
    private void retention(long nextFlush) {
        long now = System.nanoTime();
        if (now - nextRetentionNanos < 0) {
            return;
        }
        long until = now + (nextFlush - now) / 2;
        try {
            while (true) {
                int deleted = out.retentionStep(clock.millis());
                if (deleted == 0) {
                    nextRetentionNanos = System.nanoTime() + RETENTION_EVERY.toNanos();
                    return;
                }
                if (System.nanoTime() - until >= 0 || buffer.size() >= batchSize) {
                    return; // more to delete: at the next interval, after the next batch
                }
            }
        } catch (Exception e) {
            counters.failedWrites.incrementAndGet();
            nextRetentionNanos = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            LOG.warn("ledger: retention on {} failed, trying again in a minute: {}", where, describe(e));
        }
    }

    /** One line at most every ten seconds while requests go unrecorded. */
    private void logUnrecorded() {
        long total = counters.unrecorded.get();
        long now = System.nanoTime();
        if (total > unrecordedLogged && now - lastLogNanos >= LOG_EVERY_NANOS) {
            LOG.warn("ledger: {} requests not recorded since the last report, {} in all (they were served; buffer "
                    + "of {} events)", total - unrecordedLogged, total, buffer.capacity());
            unrecordedLogged = total;
            lastLogNanos = now;
        }
    }

    /**
     * The cause in a line: a batch's failure is the database's own message (PostgreSQL's
     * BatchUpdateException otherwise quotes the whole statement with its values).
     */
    static String describe(Exception e) {
        Throwable t = e;
        if (e instanceof java.sql.BatchUpdateException b && b.getNextException() != null) {
            t = b.getNextException();
        }
        String s = t.getClass().getSimpleName() + ": " + t.getMessage();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    private long lag(List<RequestEvent> batch) {
        long now = clock.millis();
        long oldestEnd = Long.MAX_VALUE;
        for (RequestEvent e : batch) {
            oldestEnd = Math.min(oldestEnd, e.receivedAtEpochMillis() + e.latencyNanos() / 1_000_000);
        }
        return Math.max(0, now - oldestEnd);
    }
}
