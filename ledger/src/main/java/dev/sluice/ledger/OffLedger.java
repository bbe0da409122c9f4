package dev.sluice.ledger;

import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import java.util.Optional;

/** {@code ledger: { kind: off }}. */
enum OffLedger implements Ledger {
    INSTANCE;

    @Override
    public void onRequest(RequestEvent event) {}

    @Override
    public RequestEventSink sink() {
        return RequestEventSink.NONE;
    }

    @Override
    public LedgerStats stats() {
        return LedgerStats.NONE;
    }

    @Override
    public Optional<LedgerQueries> queries() {
        return Optional.empty();
    }

    @Override
    public void close() {}
}
