package dev.sluice.ledger.db;

import dev.sluice.runtime.config.LedgerSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;
import org.sqlite.SQLiteConfig;

/**
 * Where the ledger's tables are, and how to open a connection to them. No pool: the ledger holds one
 * connection for writing, and each query opens its own (a file open for SQLite, a few milliseconds
 * for PostgreSQL; queries are an operator's, not a request's).
 */
public final class Database {

    private final Dialect dialect;
    private final LedgerSettings settings;

    private Database(Dialect dialect, LedgerSettings settings) {
        this.dialect = dialect;
        this.settings = settings;
    }

    /** The database the settings name; {@code kind: off} has none. */
    public static Database of(LedgerSettings settings) {
        Objects.requireNonNull(settings, "settings");
        return switch (settings.kind()) {
            case SQLITE -> new Database(Dialect.SQLITE, settings);
            case POSTGRES -> new Database(Dialect.POSTGRES, settings);
            case OFF -> throw new IllegalArgumentException("ledger kind off has no database");
        };
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The PostgreSQL schema holding the tables (unused with SQLite). */
    public String schema() {
        return settings.schema();
    }

    /** The file or the URL without its query, for messages. */
    public String describe() {
        return settings.describeLocation();
    }

    /** Whether the SQLite file exists (always true for PostgreSQL, which is asked when connecting). */
    public boolean exists() {
        return dialect != Dialect.SQLITE || Files.exists(settings.path());
    }

    /**
     * A new connection in auto-commit mode. SQLite: WAL (readers never wait for the writer),
     * {@code synchronous=NORMAL} (a commit survives the process being killed; only a power cut may
     * lose the last ones), write transactions that take the lock when they begin, and a 10 s wait
     * for a lock another process holds. PostgreSQL: the schema as search path.
     */
    public Connection connect() throws SQLException {
        return switch (dialect) {
            case SQLITE -> sqlite(settings.path());
            case POSTGRES -> postgres();
        };
    }

    private static Connection sqlite(Path file) throws SQLException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("ledger: cannot make the directory " + dir, e);
            }
        }
        SQLiteConfig c = new SQLiteConfig();
        c.setJournalMode(SQLiteConfig.JournalMode.WAL);
        c.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        c.setBusyTimeout(10_000);
        c.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        // 64 MiB of pages: the primary keys are random (trace ids), so inserts touch pages all over the index.
        c.setCacheSize(-65_536);
        return c.createConnection("jdbc:sqlite:" + file);
    }

    private Connection postgres() throws SQLException {
        Properties p = new Properties();
        settings.user().ifPresent(u -> p.setProperty("user", u));
        settings.password().ifPresent(s -> p.setProperty("password", s.reveal()));
        p.setProperty("ApplicationName", "sluice-ledger");
        // A server that stops answering must not hold the writer for ever: the batch is retried.
        p.setProperty("socketTimeout", "60");
        p.setProperty("tcpKeepAlive", "true");
        Connection c = new org.postgresql.Driver().connect(settings.url().orElseThrow(), p);
        if (c == null) {
            throw new SQLException("not a PostgreSQL URL: " + describe());
        }
        c.setSchema(settings.schema());
        return c;
    }
}
