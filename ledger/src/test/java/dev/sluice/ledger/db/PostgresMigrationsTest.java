package dev.sluice.ledger.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ledger.PostgresSchema;
import dev.sluice.runtime.config.LedgerSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresMigrationsTest extends MigrationsContract {

    @RegisterExtension
    final PostgresSchema pg = new PostgresSchema();

    @Override
    LedgerSettings settings() {
        return pg.settings();
    }

    @Test
    void theRowsTablesHaveOneIndexEachLedByTime() throws SQLException {
        try (Connection c = db().connect()) {
            Migrations.migrate(c, db().dialect(), db().schema());
            List<String> indexes = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT indexdef FROM pg_indexes WHERE schemaname = ? "
                    + "AND tablename IN ('requests', 'attempts') ORDER BY indexname")) {
                s.setString(1, pg.schema());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        indexes.add(r.getString(1).replace(pg.schema() + ".", ""));
                    }
                }
            }
            assertThat(indexes).containsExactly(
                    "CREATE UNIQUE INDEX attempts_key ON attempts USING btree (started_at, trace_id, span_id, attempt)",
                    "CREATE UNIQUE INDEX requests_key ON requests USING btree (received_at, trace_id, span_id)");
        }
    }
}
