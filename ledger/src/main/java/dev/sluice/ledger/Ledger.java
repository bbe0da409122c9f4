package dev.sluice.ledger;

import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import java.util.Optional;

/**
 * The usage ledger: one row per request and one per attempt, hourly and daily rollups, retention,
 * and the queries over them. Open one per process with {@link #open}, give it the lifecycle's
 * events as a {@link RequestEventSink}, close it at stop.
 */
public interface Ledger extends RequestEventSink, AutoCloseable {

    /**
     * The ledger the settings name, its schema migrated and its writer started; for
     * {@code kind: off}, one that records nothing.
     *
     * @throws LedgerException when the database cannot be reached or its schema is newer than this code
     */
    static Ledger open(LedgerSettings settings) {
        return settings.kind() == LedgerSettings.Kind.OFF ? off() : JdbcLedger.open(settings);
    }

    /** Records nothing, counts nothing, answers no query. */
    static Ledger off() {
        return OffLedger.INSTANCE;
    }

    /**
     * Buffers the request (and its attempts) for the writer. Never blocks and never throws: an event
     * that does not fit, or comes after {@link #close}, is counted in {@link LedgerStats#unrecorded}.
     * Attempts are recorded from their request's event; {@link #onAttempt} is ignored.
     */
    @Override
    void onRequest(RequestEvent event);

    /**
     * This ledger as the lifecycle's event sink: itself, or {@link RequestEventSink#NONE} when it
     * is off, so that a lifecycle without a ledger builds no events at all.
     */
    default RequestEventSink sink() {
        return this;
    }

    /** What has been recorded, and what could not be. */
    LedgerStats stats();

    /** The usage and review queries over this ledger; empty when it is off. */
    Optional<LedgerQueries> queries();

    /** Writes everything buffered, then stops the writer. A later event is counted as unrecorded. */
    @Override
    void close();
}
