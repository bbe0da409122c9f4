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
    void aRequestIsFoundByItsArrivalThenItsTraceIdAndRetentionWalksTheSameKey() throws SQLException {
        try (Connection c = db().connect()) {
            Migrations.migrate(c, db().dialect(), db().schema());
            // The lookup reads the key's entries of the time range, checking the trace id in the index.
            assertThat(plan(c, "SELECT * FROM requests WHERE received_at BETWEEN 1 AND 2 AND trace_id = 'x' "
                    + "ORDER BY received_at DESC, span_id DESC"))
                    .isEqualTo("SEARCH requests USING INDEX requests_key (received_at>? AND received_at<?)");
            assertThat(plan(c, "SELECT rowid FROM requests WHERE received_at < 5 LIMIT 10"))
                    .isEqualTo("SEARCH requests USING COVERING INDEX requests_key (received_at<?)");
            // One index per table of rows, each led by time: none on a random value.
            java.util.List<String> indexes = new java.util.ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('requests', 'attempts', "
                            + "'batches_written') ORDER BY name")) {
                while (r.next()) {
                    indexes.add(r.getString(1));
                }
            }
            assertThat(indexes).containsExactly("attempts_key", "batches_written_received_at", "requests_key",
                    "sqlite_autoindex_batches_written_1");
        }
    }

    @Test
    void aRequestsAttemptsAreFoundByTheirStartThenTheirIdsAndRetentionWalksTheSameKey() throws SQLException {
        try (Connection c = db().connect()) {
            Migrations.migrate(c, db().dialect(), db().schema());
            assertThat(plan(c, "SELECT * FROM attempts WHERE started_at BETWEEN 1 AND 2 AND trace_id = 'x' "
                    + "AND span_id = 'y' ORDER BY attempt"))
                    .startsWith("SEARCH attempts USING INDEX attempts_key (started_at>? AND started_at<?)");
            assertThat(plan(c, "SELECT rowid FROM attempts WHERE started_at < 5 LIMIT 10"))
                    .isEqualTo("SEARCH attempts USING COVERING INDEX attempts_key (started_at<?)");
        }
    }

    private static String plan(Connection c, String query) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("EXPLAIN QUERY PLAN " + query)) {
            r.next();
            return r.getString("detail");
        }
    }

    @Test
    void aReaderWithoutAFileSaysSo() {
        assertThatThrownBy(() -> LedgerQueries.open(LedgerSettings.sqlite(dir.resolve("none.db"))))
                .isInstanceOf(LedgerException.class)
                .hasMessage("ledger: nothing recorded at " + dir.resolve("none.db") + " (no such file)");
    }
}
