package dev.sluice.ledger;

import dev.sluice.ledger.db.LedgerStore;
import dev.sluice.runtime.event.RequestEvent;
import java.sql.SQLException;
import java.util.List;

/** What the writer thread writes to: the database, or a test's stand-in. Called from that thread only. */
interface BatchWriter extends AutoCloseable {

    /** Writes a batch in one transaction; may be called again with the same batch after a failure. */
    LedgerStore.WriteResult write(List<RequestEvent> batch) throws SQLException;

    /** One bounded step of retention at {@code nowMillis}; returns rows deleted (0: nothing left to do). */
    int retentionStep(long nowMillis) throws SQLException;

    /** A clean stop: anything that makes the stored state tidy (SQLite's checkpoint). */
    default void finish() throws SQLException {}

    @Override
    void close();
}
