package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The usage ledger: where every request and attempt is recorded, and for how long.
 *
 * @param kind an SQLite file (the default), a PostgreSQL database several replicas share, or off
 * @param path the SQLite file, for {@link Kind#SQLITE}; its directory is made when missing
 * @param url the PostgreSQL JDBC URL ({@code jdbc:postgresql://host:5432/db}), for {@link Kind#POSTGRES};
 *     without a password in it (that comes from {@code passwordEnv})
 * @param schema the PostgreSQL schema that holds the ledger's tables, made when missing
 * @param user the PostgreSQL user; empty for the driver's default
 * @param passwordEnv the environment variable holding the PostgreSQL password, when one is needed
 * @param password that variable's value as read when the file was loaded
 * @param flushInterval the longest a recorded event waits in memory before it is written: what a
 *     {@code kill -9} can lose at most
 * @param bufferSize events held in memory at most; events beyond it are counted as unrecorded, and
 *     the request they describe is served all the same
 * @param batchSize requests written in one transaction at most
 * @param retention per-request and per-attempt rows older than this are deleted
 * @param rollupRetention rollups older than this are deleted; at least {@code retention}
 * @param rows which requests get their own rows (and attempt rows); every request is summed in the
 *     rollups whatever this says
 */
public record LedgerSettings(Kind kind, Path path, Optional<String> url, String schema, Optional<String> user,
        Optional<String> passwordEnv, Optional<Secret> password, Duration flushInterval, int bufferSize,
        int batchSize, Duration retention, Duration rollupRetention, Rows rows) {

    /**
     * Which requests the ledger keeps a row for. A row costs the writer far more than its share of
     * the rollups (its bound values and indexes, and its attempts' rows), so a gateway that only
     * needs the sums, or the failures, can keep less.
     */
    public enum Rows {
        /** Every request and attempt. */
        ALL,
        /** Only requests that did not end 2xx, with their attempts. */
        NOT_ANSWERED,
        /** None: the rollups alone. */
        NONE;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Whether a request that ended with HTTP {@code status} gets a row. */
        public boolean keeps(int status) {
            return switch (this) {
                case ALL -> true;
                case NOT_ANSWERED -> status < 200 || status > 299;
                case NONE -> false;
            };
        }
    }

    /** Where the ledger is kept. */
    public enum Kind {
        SQLITE, POSTGRES, OFF;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Under the working directory; {@code /sluice-data/} is ignored by git. */
    public static final Path DEFAULT_PATH = Path.of("sluice-data", "ledger.db");
    public static final String DEFAULT_SCHEMA = "sluice";
    /** A quarter of a second: batches stay large at a gateway's full rate, and a crash loses little. */
    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(250);
    /** About six seconds of 5,000 requests per second, a few tens of MB at most. */
    public static final int DEFAULT_BUFFER_SIZE = 32_768;
    /**
     * A flush interval's worth at 20,000 requests a second. Larger batches cost less per row: a
     * batch's rollup rows are written once however many of its requests they sum.
     */
    public static final int DEFAULT_BATCH_SIZE = 5_000;
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
    /** A year and a month: last year's same month stays comparable. */
    public static final Duration DEFAULT_ROLLUP_RETENTION = Duration.ofDays(400);

    private static final Duration MAX_FLUSH_INTERVAL = Duration.ofSeconds(60);

    public LedgerSettings {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(passwordEnv, "passwordEnv");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(flushInterval, "flushInterval");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(rollupRetention, "rollupRetention");
        Objects.requireNonNull(rows, "rows");
        ConfigException.require(kind != Kind.POSTGRES || url.isPresent(), "url",
                "a jdbc:postgresql:// URL (required for kind postgres)", "nothing");
        url.ifPresent(u -> {
            ConfigException.require(u.startsWith("jdbc:postgresql://"), "url", "a jdbc:postgresql:// URL",
                    "\"" + withoutQuery(u) + "\"");
            ConfigException.require(!u.toLowerCase(Locale.ROOT).contains("password="), "url",
                    "no password in the URL (name the variable that holds it in password_env)", "a password");
        });
        ConfigException.require(schema.matches("[a-z_][a-z0-9_]{0,62}"), "schema",
                "a lowercase SQL name of letters, digits and _", "\"" + schema + "\"");
        ConfigException.require(flushInterval.compareTo(Duration.ofMillis(10)) >= 0
                && flushInterval.compareTo(MAX_FLUSH_INTERVAL) <= 0, "flush_interval", "between 10ms and 60s",
                flushInterval);
        ConfigException.require(batchSize >= 1 && batchSize <= 100_000, "batch_size", "1..100000", batchSize);
        ConfigException.require(bufferSize >= batchSize && bufferSize <= 10_000_000, "buffer_size",
                "batch_size (" + batchSize + ") .. 10000000", bufferSize);
        ConfigException.require(retention.compareTo(Duration.ofHours(1)) >= 0, "retention", ">= 1h", retention);
        ConfigException.require(rollupRetention.compareTo(retention) >= 0, "rollup_retention",
                ">= retention (" + retention + ")", rollupRetention);
    }

    /** SQLite at {@link #DEFAULT_PATH} with every default. */
    public static LedgerSettings defaults() {
        return sqlite(DEFAULT_PATH);
    }

    /** SQLite at {@code path} with every other default. */
    public static LedgerSettings sqlite(Path path) {
        return new LedgerSettings(Kind.SQLITE, path, Optional.empty(), DEFAULT_SCHEMA, Optional.empty(),
                Optional.empty(), Optional.empty(), DEFAULT_FLUSH_INTERVAL, DEFAULT_BUFFER_SIZE, DEFAULT_BATCH_SIZE,
                DEFAULT_RETENTION, DEFAULT_ROLLUP_RETENTION, Rows.ALL);
    }

    /** PostgreSQL at {@code url}, tables in {@code schema}, with every other default. */
    public static LedgerSettings postgres(String url, String schema) {
        return new LedgerSettings(Kind.POSTGRES, DEFAULT_PATH, Optional.of(url), schema, Optional.empty(),
                Optional.empty(), Optional.empty(), DEFAULT_FLUSH_INTERVAL, DEFAULT_BUFFER_SIZE, DEFAULT_BATCH_SIZE,
                DEFAULT_RETENTION, DEFAULT_ROLLUP_RETENTION, Rows.ALL);
    }

    /** No ledger: nothing is recorded. */
    public static LedgerSettings off() {
        return new LedgerSettings(Kind.OFF, DEFAULT_PATH, Optional.empty(), DEFAULT_SCHEMA, Optional.empty(),
                Optional.empty(), Optional.empty(), DEFAULT_FLUSH_INTERVAL, DEFAULT_BUFFER_SIZE, DEFAULT_BATCH_SIZE,
                DEFAULT_RETENTION, DEFAULT_ROLLUP_RETENTION, Rows.ALL);
    }

    /** A copy with another flush interval, buffer and batch size (tests, benchmarks). */
    public LedgerSettings withBuffering(Duration flush, int buffer, int batch) {
        return new LedgerSettings(kind, path, url, schema, user, passwordEnv, password, flush, buffer, batch,
                retention, rollupRetention, rows);
    }

    /** A copy with other retention periods. */
    public LedgerSettings withRetention(Duration rows, Duration rollups) {
        return new LedgerSettings(kind, path, url, schema, user, passwordEnv, password, flushInterval, bufferSize,
                batchSize, rows, rollups, this.rows);
    }

    /** A copy that keeps rows for {@code kept} requests only. */
    public LedgerSettings withRows(Rows kept) {
        return new LedgerSettings(kind, path, url, schema, user, passwordEnv, password, flushInterval, bufferSize,
                batchSize, retention, rollupRetention, kept);
    }

    /** Where the ledger is, for messages: the file, or the URL without its query. */
    public String describeLocation() {
        return switch (kind) {
            case SQLITE -> path.toString();
            case POSTGRES -> withoutQuery(url.orElse("")) + " (schema " + schema + ")";
            case OFF -> "off";
        };
    }

    private static String withoutQuery(String u) {
        int q = u.indexOf('?');
        return q < 0 ? u : u.substring(0, q) + "?...";
    }
}
