package dev.sluice.ledger;

import dev.sluice.runtime.config.LedgerSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A schema of its own per test in the shared PostgreSQL server (127.0.0.1:5432, database test,
 * user postgres, trust auth), dropped after the test: other engineers' schemas are never touched.
 * The ledger creates the schema itself; this only names it and drops it.
 */
public final class PostgresSchema implements BeforeEachCallback, AfterEachCallback {

    public static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    private String schema;

    @Override
    public void beforeEach(ExtensionContext context) {
        byte[] r = new byte[6];
        ThreadLocalRandom.current().nextBytes(r);
        schema = "ledger_test_" + HexFormat.of().formatHex(r);
    }

    @Override
    public void afterEach(ExtensionContext context) throws SQLException {
        try (Connection c = DriverManager.getConnection(URL); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    /** This test's schema name. */
    public String schema() {
        return schema;
    }

    /** A ledger on this test's schema, every other setting at its default. */
    public LedgerSettings settings() {
        return LedgerSettings.postgres(URL, schema);
    }

    /** A connection with this test's schema as search path (it may not exist yet). */
    public Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(URL);
        c.setSchema(schema);
        return c;
    }
}
