package dev.sluice.ledger;

import dev.sluice.runtime.config.LedgerSettings;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresLedgerTest extends LedgerContract {

    @RegisterExtension
    final PostgresSchema pg = new PostgresSchema();

    @Override
    LedgerSettings settings() {
        return pg.settings();
    }
}
