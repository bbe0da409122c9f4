package dev.sluice.ledger.db;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The ledger's schema as numbered steps, applied in order at start, each once: the versions applied
 * are rows of {@code schema_version}. A step's text never changes once released; a change of schema
 * is a new step. Several replicas starting at once apply each step once (PostgreSQL: an advisory
 * lock around the run; SQLite: each step in a transaction that takes the write lock at its start).
 */
public final class Migrations {

    /** One step: its statements run in one transaction together with its {@code schema_version} row. */
    public record Migration(int version, String description, List<String> statements) {
        public Migration {
            statements = List.copyOf(statements);
        }
    }

    // Times: epoch milliseconds in per-request rows, epoch seconds (UTC) for rollup periods.
    // Flags are INTEGER 0/1 in both databases. An absent value is NULL in a row, '' in a rollup key
    // (NULLs never conflict, so a key with one could not be upserted).
    static final List<Migration> ALL = List.of(
            new Migration(1, "per-request and per-attempt rows", List.of("""
                    CREATE TABLE requests (
                      trace_id TEXT NOT NULL,
                      span_id TEXT NOT NULL,
                      received_at BIGINT NOT NULL,
                      operation TEXT NOT NULL,
                      org TEXT,
                      tenant TEXT,
                      team TEXT,
                      api_key TEXT,
                      profile TEXT,
                      traffic_class TEXT,
                      deployment TEXT,
                      provider TEXT,
                      provider_model TEXT,
                      provider_scope TEXT NOT NULL,
                      streaming INTEGER NOT NULL,
                      estimated_input BIGINT NOT NULL,
                      estimated_output BIGINT NOT NULL,
                      estimated_cache_read BIGINT NOT NULL,
                      input_tokens BIGINT NOT NULL,
                      output_tokens BIGINT NOT NULL,
                      cache_read_tokens BIGINT NOT NULL,
                      usage_reported INTEGER NOT NULL,
                      decision TEXT NOT NULL,
                      gateway_decision TEXT,
                      decider_limiter TEXT,
                      decider_scope TEXT,
                      decider_window TEXT,
                      code TEXT,
                      queue_wait_ns BIGINT NOT NULL,
                      mode TEXT,
                      brownout INTEGER NOT NULL,
                      borrowed INTEGER NOT NULL,
                      attempts INTEGER NOT NULL,
                      fallback TEXT,
                      status INTEGER NOT NULL,
                      retry_after_ms BIGINT,
                      latency_ns BIGINT NOT NULL,
                      ttft_ns BIGINT,
                      writer TEXT NOT NULL,
                      PRIMARY KEY (trace_id, span_id))""", """
                    CREATE TABLE attempts (
                      trace_id TEXT NOT NULL,
                      span_id TEXT NOT NULL,
                      attempt INTEGER NOT NULL,
                      started_at BIGINT NOT NULL,
                      deployment TEXT NOT NULL,
                      provider TEXT NOT NULL,
                      provider_model TEXT NOT NULL,
                      provider_scope TEXT NOT NULL,
                      result TEXT NOT NULL,
                      status INTEGER NOT NULL,
                      reason TEXT NOT NULL,
                      limit_hit TEXT,
                      provider_retry_after_ms BIGINT,
                      estimated_input BIGINT NOT NULL,
                      estimated_output BIGINT NOT NULL,
                      estimated_cache_read BIGINT NOT NULL,
                      input_tokens BIGINT NOT NULL,
                      output_tokens BIGINT NOT NULL,
                      cache_read_tokens BIGINT NOT NULL,
                      usage_reported INTEGER NOT NULL,
                      cache_reads_counted INTEGER NOT NULL,
                      settlement TEXT NOT NULL,
                      latency_ns BIGINT NOT NULL,
                      ttft_ns BIGINT,
                      retry_delay_ms BIGINT,
                      PRIMARY KEY (trace_id, span_id, attempt))""",
                    // Retention deletes by age and a drill-down lists a period: both walk these.
                    "CREATE INDEX requests_received_at ON requests (received_at)",
                    "CREATE INDEX attempts_started_at ON attempts (started_at)")),
            new Migration(2, "hourly and daily rollups", List.of("""
                    CREATE TABLE usage_rollup (
                      grain TEXT NOT NULL,
                      period_start BIGINT NOT NULL,
                      org TEXT NOT NULL,
                      tenant TEXT NOT NULL,
                      team TEXT NOT NULL,
                      api_key TEXT NOT NULL,
                      profile TEXT NOT NULL,
                      deployment TEXT NOT NULL,
                      provider TEXT NOT NULL,
                      traffic_class TEXT NOT NULL,
                      writer TEXT NOT NULL,
                      requests BIGINT NOT NULL,
                      answered BIGINT NOT NULL,
                      refused_locally BIGINT NOT NULL,
                      provider_rejected BIGINT NOT NULL,
                      client_gone BIGINT NOT NULL,
                      failed BIGINT NOT NULL,
                      queued BIGINT NOT NULL,
                      streaming BIGINT NOT NULL,
                      attempts BIGINT NOT NULL,
                      fallbacks BIGINT NOT NULL,
                      estimated_input BIGINT NOT NULL,
                      estimated_output BIGINT NOT NULL,
                      estimated_cache_read BIGINT NOT NULL,
                      input_tokens BIGINT NOT NULL,
                      output_tokens BIGINT NOT NULL,
                      cache_read_tokens BIGINT NOT NULL,
                      usage_unreported BIGINT NOT NULL,
                      queue_wait_ns BIGINT NOT NULL,
                      latency_ns BIGINT NOT NULL,
                      ttft_ns BIGINT NOT NULL,
                      ttft_count BIGINT NOT NULL,
                      borrowed BIGINT NOT NULL,
                      borrowed_input BIGINT NOT NULL,
                      borrowed_output BIGINT NOT NULL,
                      PRIMARY KEY (grain, period_start, org, tenant, team, api_key, profile, deployment, provider,
                                   traffic_class, writer))""", """
                    CREATE TABLE attempt_rollup (
                      grain TEXT NOT NULL,
                      period_start BIGINT NOT NULL,
                      deployment TEXT NOT NULL,
                      provider TEXT NOT NULL,
                      provider_model TEXT NOT NULL,
                      profile TEXT NOT NULL,
                      writer TEXT NOT NULL,
                      attempts BIGINT NOT NULL,
                      answered BIGINT NOT NULL,
                      throttled BIGINT NOT NULL,
                      refused BIGINT NOT NULL,
                      failed BIGINT NOT NULL,
                      client_gone BIGINT NOT NULL,
                      never_sent BIGINT NOT NULL,
                      settled BIGINT NOT NULL,
                      released BIGINT NOT NULL,
                      held BIGINT NOT NULL,
                      estimated_input BIGINT NOT NULL,
                      estimated_output BIGINT NOT NULL,
                      estimated_cache_read BIGINT NOT NULL,
                      input_tokens BIGINT NOT NULL,
                      output_tokens BIGINT NOT NULL,
                      cache_read_tokens BIGINT NOT NULL,
                      uncounted_cache_read BIGINT NOT NULL,
                      reserved_input BIGINT NOT NULL,
                      reserved_output BIGINT NOT NULL,
                      used_input BIGINT NOT NULL,
                      used_output BIGINT NOT NULL,
                      stranded_input BIGINT NOT NULL,
                      stranded_output BIGINT NOT NULL,
                      overage_input BIGINT NOT NULL,
                      overage_output BIGINT NOT NULL,
                      latency_ns BIGINT NOT NULL,
                      PRIMARY KEY (grain, period_start, deployment, provider, provider_model, profile, writer))""", """
                    CREATE TABLE estimate_ratio_rollup (
                      grain TEXT NOT NULL,
                      period_start BIGINT NOT NULL,
                      profile TEXT NOT NULL,
                      deployment TEXT NOT NULL,
                      dimension TEXT NOT NULL,
                      bucket INTEGER NOT NULL,
                      writer TEXT NOT NULL,
                      samples BIGINT NOT NULL,
                      estimated BIGINT NOT NULL,
                      actual BIGINT NOT NULL,
                      ratio_sum DOUBLE PRECISION NOT NULL,
                      PRIMARY KEY (grain, period_start, profile, deployment, dimension, bucket, writer))""", """
                    CREATE TABLE retry_after_rollup (
                      grain TEXT NOT NULL,
                      period_start BIGINT NOT NULL,
                      source TEXT NOT NULL,
                      provider TEXT NOT NULL,
                      deployment TEXT NOT NULL,
                      limiter TEXT NOT NULL,
                      bucket INTEGER NOT NULL,
                      writer TEXT NOT NULL,
                      samples BIGINT NOT NULL,
                      total_ms BIGINT NOT NULL,
                      max_ms BIGINT NOT NULL,
                      PRIMARY KEY (grain, period_start, source, provider, deployment, limiter, bucket, writer))""")),
            // Changes made through the admin API: what operators read (before, after: never a secret or
            // its hash) and the state each left (a key's hash included), replayed over the file at start.
            new Migration(3, "admin changes: audit and state", List.of("""
                    CREATE TABLE admin_changes (
                      seq BIGINT NOT NULL PRIMARY KEY,
                      at BIGINT NOT NULL,
                      token_id TEXT NOT NULL,
                      action TEXT NOT NULL,
                      target TEXT NOT NULL,
                      before_json TEXT NOT NULL,
                      after_json TEXT NOT NULL,
                      state_json TEXT NOT NULL)""")),
            // Money: what each request was reserved as costing and what it cost, at the price table, in
            // micro-dollars (0 where its model has no price), and their sums in the usage rollup.
            new Migration(4, "request cost", List.of(
                    "ALTER TABLE requests ADD COLUMN estimated_cost_micros BIGINT NOT NULL DEFAULT 0",
                    "ALTER TABLE requests ADD COLUMN cost_micros BIGINT NOT NULL DEFAULT 0",
                    "ALTER TABLE usage_rollup ADD COLUMN estimated_cost_micros BIGINT NOT NULL DEFAULT 0",
                    "ALTER TABLE usage_rollup ADD COLUMN cost_micros BIGINT NOT NULL DEFAULT 0")),
            // What `/admin/explain` tells of a request read back from the ledger: the rest of its
            // decider (pause, reserve, the predicted wait against the budget and what set it, the
            // call's own expected duration). NULL where no limiter decided (and in older rows).
            new Migration(5, "the whole decision of a request", List.of(
                    "ALTER TABLE requests ADD COLUMN decider_paused INTEGER",
                    "ALTER TABLE requests ADD COLUMN decider_reserve INTEGER",
                    "ALTER TABLE requests ADD COLUMN predicted_wait_ns BIGINT",
                    "ALTER TABLE requests ADD COLUMN service_ns BIGINT",
                    "ALTER TABLE requests ADD COLUMN budget_ns BIGINT",
                    "ALTER TABLE requests ADD COLUMN bound_by TEXT",
                    // `/admin/explain` finds a request by its trace id alone (the key is trace and span).
                    "CREATE INDEX IF NOT EXISTS requests_trace ON requests (trace_id)")),
            // With `ledger.rows` keeping rows for some requests only, the others have no row whose key
            // would stop a batch written twice (a retry, a journal replay, a second replica) from being
            // summed twice: such a batch's part without rows is marked here, by the sum of its ids' hashes.
            new Migration(6, "marks of batches written without rows", List.of("""
                    CREATE TABLE batches_written (
                      batch BIGINT NOT NULL PRIMARY KEY,
                      received_at BIGINT NOT NULL,
                      requests INTEGER NOT NULL,
                      writer TEXT NOT NULL)""",
                    "CREATE INDEX batches_written_received_at ON batches_written (received_at)")),
            // The primary key (trace_id, span_id) already finds a request by its trace id alone; the
            // index of step 5 only cost every insert its upkeep.
            new Migration(7, "no second index on trace ids", List.of(
                    "DROP INDEX IF EXISTS requests_trace")),
            // An attempt row's unique key led by its start time instead of its random trace id: a batch's
            // inserts land at the right edge of one index instead of on a page each all over two (the key
            // and the time index), which was most of what an attempt row cost (docs/LEDGER.md#cost). The
            // same rows are unique (a replayed attempt has the same start); retention walks the key by
            // its time, and a request's attempts are found between its arrival and its end. The table is
            // made anew (SQLite cannot change a primary key in place), in the same column order.
            new Migration(8, "attempt rows keyed by their start time", List.of("""
                    CREATE TABLE attempts_by_time (
                      trace_id TEXT NOT NULL,
                      span_id TEXT NOT NULL,
                      attempt INTEGER NOT NULL,
                      started_at BIGINT NOT NULL,
                      deployment TEXT NOT NULL,
                      provider TEXT NOT NULL,
                      provider_model TEXT NOT NULL,
                      provider_scope TEXT NOT NULL,
                      result TEXT NOT NULL,
                      status INTEGER NOT NULL,
                      reason TEXT NOT NULL,
                      limit_hit TEXT,
                      provider_retry_after_ms BIGINT,
                      estimated_input BIGINT NOT NULL,
                      estimated_output BIGINT NOT NULL,
                      estimated_cache_read BIGINT NOT NULL,
                      input_tokens BIGINT NOT NULL,
                      output_tokens BIGINT NOT NULL,
                      cache_read_tokens BIGINT NOT NULL,
                      usage_reported INTEGER NOT NULL,
                      cache_reads_counted INTEGER NOT NULL,
                      settlement TEXT NOT NULL,
                      latency_ns BIGINT NOT NULL,
                      ttft_ns BIGINT,
                      retry_delay_ms BIGINT)""",
                    "INSERT INTO attempts_by_time SELECT trace_id, span_id, attempt, started_at, deployment, provider, "
                            + "provider_model, provider_scope, result, status, reason, limit_hit, "
                            + "provider_retry_after_ms, estimated_input, estimated_output, estimated_cache_read, "
                            + "input_tokens, output_tokens, cache_read_tokens, usage_reported, cache_reads_counted, "
                            + "settlement, latency_ns, ttft_ns, retry_delay_ms FROM attempts",
                    "DROP TABLE attempts",
                    "ALTER TABLE attempts_by_time RENAME TO attempts",
                    "CREATE UNIQUE INDEX attempts_key ON attempts (started_at, trace_id, span_id, attempt)")),
            // A request row's unique key led by its arrival time, as step 8 did for the attempts: the
            // primary key (trace_id, span_id) put every insert of a batch on a page of its own all over
            // its index, which was most of what a request row cost and grew with the table
            // (docs/LEDGER.md#cost). The same rows are unique (a retried batch or a second replica
            // writes the same event, with the same arrival); retention walks the key by its time, so the
            // index requests_received_at goes; and no index is kept on the trace id alone (any index
            // on a random value costs the same per row once the table is large): a request is found
            // by its trace id in the time the id carries or the caller gives (query.RequestLookup).
            // The table is made anew (SQLite cannot change a primary key in place), columns in the same
            // order: those of step 1, then 4, then 5.
            new Migration(9, "request rows keyed by their arrival time", List.of("""
                    CREATE TABLE requests_by_time (
                      trace_id TEXT NOT NULL,
                      span_id TEXT NOT NULL,
                      received_at BIGINT NOT NULL,
                      operation TEXT NOT NULL,
                      org TEXT,
                      tenant TEXT,
                      team TEXT,
                      api_key TEXT,
                      profile TEXT,
                      traffic_class TEXT,
                      deployment TEXT,
                      provider TEXT,
                      provider_model TEXT,
                      provider_scope TEXT NOT NULL,
                      streaming INTEGER NOT NULL,
                      estimated_input BIGINT NOT NULL,
                      estimated_output BIGINT NOT NULL,
                      estimated_cache_read BIGINT NOT NULL,
                      input_tokens BIGINT NOT NULL,
                      output_tokens BIGINT NOT NULL,
                      cache_read_tokens BIGINT NOT NULL,
                      usage_reported INTEGER NOT NULL,
                      decision TEXT NOT NULL,
                      gateway_decision TEXT,
                      decider_limiter TEXT,
                      decider_scope TEXT,
                      decider_window TEXT,
                      code TEXT,
                      queue_wait_ns BIGINT NOT NULL,
                      mode TEXT,
                      brownout INTEGER NOT NULL,
                      borrowed INTEGER NOT NULL,
                      attempts INTEGER NOT NULL,
                      fallback TEXT,
                      status INTEGER NOT NULL,
                      retry_after_ms BIGINT,
                      latency_ns BIGINT NOT NULL,
                      ttft_ns BIGINT,
                      writer TEXT NOT NULL,
                      estimated_cost_micros BIGINT NOT NULL DEFAULT 0,
                      cost_micros BIGINT NOT NULL DEFAULT 0,
                      decider_paused INTEGER,
                      decider_reserve INTEGER,
                      predicted_wait_ns BIGINT,
                      service_ns BIGINT,
                      budget_ns BIGINT,
                      bound_by TEXT)""",
                    "INSERT INTO requests_by_time SELECT trace_id, span_id, received_at, operation, org, tenant, team, "
                            + "api_key, profile, traffic_class, deployment, provider, provider_model, provider_scope, "
                            + "streaming, estimated_input, estimated_output, estimated_cache_read, input_tokens, "
                            + "output_tokens, cache_read_tokens, usage_reported, decision, gateway_decision, "
                            + "decider_limiter, decider_scope, decider_window, code, queue_wait_ns, mode, brownout, "
                            + "borrowed, attempts, fallback, status, retry_after_ms, latency_ns, ttft_ns, writer, "
                            + "estimated_cost_micros, cost_micros, decider_paused, decider_reserve, predicted_wait_ns, "
                            + "service_ns, budget_ns, bound_by FROM requests",
                    "DROP TABLE requests",
                    "ALTER TABLE requests_by_time RENAME TO requests",
                    "CREATE UNIQUE INDEX requests_key ON requests (received_at, trace_id, span_id)")),
            // A request that made one attempt, on the deployment it names (about nine in ten), keeps that
            // attempt's facts in its own row instead of a row of `attempts`: one row written instead of
            // two, which was half of what the writer spent on rows (docs/LEDGER.md#cost). NULL
            // attempt_started_at: the request's attempts, if any, are rows of `attempts` (older rows too).
            new Migration(10, "a request's one attempt in its row", List.of(
                    "ALTER TABLE requests ADD COLUMN attempt_started_at BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_result TEXT",
                    "ALTER TABLE requests ADD COLUMN attempt_status INTEGER",
                    "ALTER TABLE requests ADD COLUMN attempt_reason TEXT",
                    "ALTER TABLE requests ADD COLUMN attempt_limit_hit TEXT",
                    "ALTER TABLE requests ADD COLUMN attempt_provider_retry_after_ms BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_estimated_input BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_estimated_output BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_estimated_cache_read BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_input_tokens BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_output_tokens BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_cache_read_tokens BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_usage_reported INTEGER",
                    "ALTER TABLE requests ADD COLUMN attempt_cache_reads_counted INTEGER",
                    "ALTER TABLE requests ADD COLUMN attempt_settlement TEXT",
                    "ALTER TABLE requests ADD COLUMN attempt_latency_ns BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_ttft_ns BIGINT",
                    "ALTER TABLE requests ADD COLUMN attempt_retry_delay_ms BIGINT")));

    private Migrations() {}

    /** The version this code writes and reads. */
    public static int latest() {
        return ALL.size();
    }

    /** Applies every step not yet applied; returns the version reached. */
    public static int migrate(Connection c, Dialect dialect, String schema) throws SQLException {
        return migrate(c, dialect, schema, latest());
    }

    /**
     * Applies the steps up to {@code target} not yet applied (a test makes an older schema so).
     *
     * @throws SchemaTooNewException when the database holds a version this code does not know
     */
    public static int migrate(Connection c, Dialect dialect, String schema, int target) throws SQLException {
        if (target < 0 || target > latest()) {
            throw new IllegalArgumentException("target: " + target + " (expected: 0.." + latest() + ")");
        }
        boolean auto = c.getAutoCommit();
        long lock = lockKey(schema);
        if (dialect == Dialect.POSTGRES) {
            try (PreparedStatement s = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
                s.setLong(1, lock);
                s.execute();
            }
        }
        try {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                if (dialect == Dialect.POSTGRES) {
                    s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
                    c.setSchema(schema);
                }
                s.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                        + "description TEXT NOT NULL, applied_at BIGINT NOT NULL)");
            }
            c.commit();
            while (true) {
                int at = version(c, dialect);
                if (at > latest()) {
                    c.rollback();
                    throw new SchemaTooNewException(at, latest());
                }
                if (at >= target) {
                    c.commit();
                    return at;
                }
                Migration m = ALL.get(at);
                try (Statement s = c.createStatement()) {
                    for (String sql : m.statements()) {
                        s.execute(sql);
                    }
                }
                try (PreparedStatement s = c.prepareStatement(
                        "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)")) {
                    s.setInt(1, m.version());
                    s.setString(2, m.description());
                    s.setLong(3, System.currentTimeMillis());
                    s.executeUpdate();
                }
                c.commit();
            }
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
            if (dialect == Dialect.POSTGRES) {
                try (PreparedStatement s = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                    s.setLong(1, lock);
                    s.execute();
                }
            }
        }
    }

    /** The version the database holds: 0 when it has no ledger tables at all. */
    public static int version(Connection c, Dialect dialect) throws SQLException {
        if (!hasVersionTable(c, dialect)) {
            return 0;
        }
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT MAX(version) FROM schema_version")) {
            r.next();
            return r.getInt(1);
        }
    }

    private static boolean hasVersionTable(Connection c, Dialect dialect) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        String schema = dialect == Dialect.POSTGRES ? c.getSchema() : null;
        if (dialect == Dialect.POSTGRES && schema == null) {
            return false; // the schema itself does not exist yet
        }
        try (ResultSet r = md.getTables(null, schema, "schema_version", null)) {
            return r.next();
        }
    }

    /** One lock per schema, so ledgers in other schemas of the same database never wait for this one. */
    private static long lockKey(String schema) {
        long h = 1125899906842597L;
        for (char ch : ("sluice-ledger:" + schema).toCharArray()) {
            h = 31 * h + ch;
        }
        return h;
    }

    /** The database was migrated by a newer Sluice: this one must not write to it. */
    public static final class SchemaTooNewException extends SQLException {
        private static final long serialVersionUID = 1L;

        SchemaTooNewException(int found, int known) {
            super("ledger schema version " + found + " is newer than this Sluice knows (" + known
                    + "): run the Sluice that migrated it, or point the ledger elsewhere");
        }
    }
}
