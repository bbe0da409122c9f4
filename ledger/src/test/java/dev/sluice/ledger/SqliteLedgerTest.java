package dev.sluice.ledger;

import dev.sluice.runtime.config.LedgerSettings;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteLedgerTest extends LedgerContract {

    @TempDir
    Path dir;

    @Override
    LedgerSettings settings() {
        return LedgerSettings.sqlite(dir.resolve("data").resolve("ledger.db"));
    }
}
