package dev.sluice.ledger.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ledger.LedgerException;
import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.runtime.config.LedgerSettings;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteMigrationsTest extends MigrationsContract {

    @TempDir
    Path dir;

    @Override
    LedgerSettings settings() {
        return LedgerSettings.sqlite(dir.resolve("ledger.db"));
    }

    @Test
    void theFileIsInWriteAheadLogMode() throws SQLException {
        try (Connection c = db().connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("PRAGMA journal_mode")) {
            r.next();
            assertThat(r.getString(1)).isEqualTo("wal");
        }
    }

    @Test
    void aReaderWithoutAFileSaysSo() {
        assertThatThrownBy(() -> LedgerQueries.open(LedgerSettings.sqlite(dir.resolve("none.db"))))
                .isInstanceOf(LedgerException.class)
                .hasMessage("ledger: nothing recorded at " + dir.resolve("none.db") + " (no such file)");
    }
}
