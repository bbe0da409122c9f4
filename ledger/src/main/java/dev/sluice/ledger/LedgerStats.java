package dev.sluice.ledger;

/**
 * What the ledger has done since it opened, for metrics and the dashboard.
 *
 * @param recorded requests written (each once, whatever the retries): in the rollups, and with a row
 *     when {@code ledger.rows} keeps one
 * @param recordedAttempts attempts written (in rows of their own, or in their request's row when it made one)
 * @param duplicates requests already in the ledger when written (a batch written again after a
 *     failure, or the same event from two replicas): not counted twice
 * @param unrecorded requests that could not be recorded: the buffer was full, the ledger was
 *     closed, or the database stayed unreachable until the ledger closed
 * @param pending requests waiting in the buffer
 * @param failedWrites transactions that failed (and were tried again)
 * @param lastWriteLagMillis for the last batch written: from the end of its oldest request to the
 *     commit, wall time
 */
public record LedgerStats(long recorded, long recordedAttempts, long duplicates, long unrecorded, int pending,
        long failedWrites, long lastWriteLagMillis) {

    /** Nothing done. */
    public static final LedgerStats NONE = new LedgerStats(0, 0, 0, 0, 0, 0, 0);
}
