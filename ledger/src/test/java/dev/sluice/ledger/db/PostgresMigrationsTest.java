package dev.sluice.ledger.db;

import dev.sluice.ledger.PostgresSchema;
import dev.sluice.runtime.config.LedgerSettings;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresMigrationsTest extends MigrationsContract {

    @RegisterExtension
    final PostgresSchema pg = new PostgresSchema();

    @Override
    LedgerSettings settings() {
        return pg.settings();
    }
}
