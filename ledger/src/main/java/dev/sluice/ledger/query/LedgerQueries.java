package dev.sluice.ledger.query;

import dev.sluice.ledger.LedgerException;
import dev.sluice.ledger.db.Buckets;
import dev.sluice.ledger.db.Database;
import dev.sluice.ledger.db.Migrations;
import dev.sluice.runtime.config.LedgerSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The usage ledger's questions, answered from the rollups only (never by scanning per-request rows,
 * so a year of traffic answers as fast as an hour of it; {@link #request} reads one by its index). Safe to call from any thread; each call
 * opens its own connection. The admin API serves these records as they are; the {@code sluice}
 * command prints them.
 */
public final class LedgerQueries {

    /** How many consumers per dimension the review lists. */
    public static final int TOP = 5;

    private static final List<String> CONSUMED = List.of("requests", "input_tokens", "output_tokens",
            "cache_read_tokens");

    private final Database db;
    private final Clock clock;

    private LedgerQueries(Database db, Clock clock) {
        this.db = Objects.requireNonNull(db, "db");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Queries over {@code db}; {@code clock} tells which hourly rollups retention has kept. */
    public static LedgerQueries of(Database db, Clock clock) {
        return new LedgerQueries(db, clock);
    }

    /**
     * Queries over the ledger the settings name, for a process that does not write it (the
     * {@code sluice} command). Its schema must be the one this code reads; nothing is migrated.
     *
     * @throws LedgerException when there is no ledger there, or its schema is another version
     */
    public static LedgerQueries open(LedgerSettings settings) {
        return open(settings, Clock.systemUTC());
    }

    /** As {@link #open(LedgerSettings)}, taking now from {@code clock}. */
    public static LedgerQueries open(LedgerSettings settings, Clock clock) {
        if (settings.kind() == LedgerSettings.Kind.OFF) {
            throw new LedgerException("ledger: off in this configuration (ledger.kind), nothing to read");
        }
        Database db = Database.of(settings);
        if (!db.exists()) {
            throw new LedgerException("ledger: nothing recorded at " + db.describe() + " (no such file)");
        }
        try (Connection c = db.connect()) {
            int v = Migrations.version(c, db.dialect());
            if (v != Migrations.latest()) {
                throw new LedgerException("ledger: " + db.describe() + " has schema version " + v
                        + (v == 0 ? " (no ledger there)" : "") + "; this Sluice reads version " + Migrations.latest()
                        + (v < Migrations.latest() && v > 0 ? ": start the gateway once to migrate it" : ""));
            }
        } catch (SQLException e) {
            throw new LedgerException("ledger: cannot read " + db.describe() + ": " + e.getMessage(), e);
        }
        return new LedgerQueries(db, clock);
    }

    /** Usage in {@code window}, one row per group, the most requests first (then by name). */
    public Usage usage(Window window, Grouping by) {
        RollupSpan span = RollupSpan.of(window, clock.instant());
        String sql = "SELECT " + by.column() + ", " + USAGE_SUMS + " FROM usage_rollup WHERE " + RollupSpan.WHERE
                + " GROUP BY " + by.column() + " ORDER BY SUM(requests) DESC, " + by.column();
        List<UsageRow> rows = new ArrayList<>();
        run(sql, span, r -> rows.add(usageRow(r.getString(1), r, 2)));
        long[] t = new long[16];
        for (UsageRow u : rows) {
            long[] v = {u.requests(), u.answered(), u.refusedLocally(), u.providerRejected(), u.clientGone(),
                    u.failed(), u.queued(), u.inputTokens(), u.outputTokens(), u.cacheReadTokens(),
                    u.estimatedInputTokens(), u.estimatedOutputTokens(), u.borrowed(), u.latencyMillisSum(),
                    u.estimatedCostMicros(), u.costMicros()};
            for (int i = 0; i < v.length; i++) {
                t[i] += v[i];
            }
        }
        UsageRow total = new UsageRow("", t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11],
                t[12], t[13], t[14], t[15]);
        return new Usage(span.covered(), by, rows, total);
    }

    /**
     * The request recorded with {@code traceId}, as its event was written (the newest, should a
     * caller's trace hold several), looked for where a time tells: within
     * {@link #AROUND} of the time a trace id Sluice made carries ({@link
     * dev.sluice.runtime.event.TimedTraceIds}), then in the last {@link #RECENT} (a caller's trace id
     * carries no time). Empty when it is in neither: not recorded, deleted by retention, or a
     * caller's trace older than that, which {@link #request(String, Instant)} finds. Unlike the other
     * queries this reads per-request rows, by their key (arrival first): the rows have no index on
     * the trace id (docs/LEDGER.md#finding-a-request).
     */
    public Optional<dev.sluice.runtime.event.RequestEvent> request(String traceId) {
        List<RequestLookup.Range> ranges = new ArrayList<>(2);
        dev.sluice.runtime.event.TimedTraceIds.timeOf(traceId).ifPresent(t -> ranges.add(RequestLookup.around(t)));
        long now = clock.millis();
        ranges.add(new RequestLookup.Range(now - RECENT.toMillis(), now + AROUND.toMillis()));
        return RequestLookup.find(db, traceId, ranges);
    }

    /**
     * The request recorded with {@code traceId} that arrived within {@link #AROUND} of
     * {@code around} (the newest, should a caller's trace hold several there); empty when none did.
     */
    public Optional<dev.sluice.runtime.event.RequestEvent> request(String traceId, Instant around) {
        return RequestLookup.find(db, traceId, List.of(RequestLookup.around(around.toEpochMilli())));
    }

    /**
     * How far either side of the time given (or carried by a trace id Sluice made) a request's
     * arrival is looked for: for a time an operator read off a log, and a wall clock stepped meanwhile.
     */
    public static final Duration AROUND = Duration.ofMillis(RequestLookup.AROUND_MILLIS);

    /**
     * How far back a trace id that carries no time is looked for without one given: the scan reads
     * every request key of this span (at 1,000 requests a second, 3.6 million), so it is kept short.
     */
    public static final Duration RECENT = Duration.ofHours(1);

    /** The review over {@code window}, {@link #TOP} consumers per dimension. */
    public Review review(Window window) {
        RollupSpan span = RollupSpan.of(window, clock.instant());
        return new Review(span.covered(), estimation(span), stranded(span), cacheHeadroom(span), retryAfter(span),
                topConsumers(span), borrowing(span));
    }

    private static final String USAGE_SUMS = "SUM(requests), SUM(answered), SUM(refused_locally), "
            + "SUM(provider_rejected), SUM(client_gone), SUM(failed), SUM(queued), SUM(input_tokens), "
            + "SUM(output_tokens), SUM(cache_read_tokens), SUM(estimated_input), SUM(estimated_output), "
            + "SUM(borrowed), SUM(latency_ns), SUM(estimated_cost_micros), SUM(cost_micros)";

    private static UsageRow usageRow(String group, ResultSet r, int c) throws SQLException {
        return new UsageRow(group, r.getLong(c), r.getLong(c + 1), r.getLong(c + 2), r.getLong(c + 3),
                r.getLong(c + 4), r.getLong(c + 5), r.getLong(c + 6), r.getLong(c + 7), r.getLong(c + 8),
                r.getLong(c + 9), r.getLong(c + 10), r.getLong(c + 11), r.getLong(c + 12),
                r.getLong(c + 13) / 1_000_000, r.getLong(c + 14), r.getLong(c + 15));
    }

    private List<Review.EstimationError> estimation(RollupSpan span) {
        record Route(String profile, String deployment, String dimension) {}
        Map<Route, List<long[]>> buckets = new LinkedHashMap<>();
        Map<Route, double[]> sums = new LinkedHashMap<>();
        run("SELECT profile, deployment, dimension, bucket, SUM(samples), SUM(estimated), SUM(actual), SUM(ratio_sum) "
                + "FROM estimate_ratio_rollup WHERE " + RollupSpan.WHERE + " GROUP BY profile, deployment, dimension, "
                + "bucket ORDER BY profile, deployment, dimension, bucket", span, r -> {
                    Route route = new Route(r.getString(1), r.getString(2), r.getString(3));
                    buckets.computeIfAbsent(route, k -> new ArrayList<>()).add(new long[] {r.getInt(4), r.getLong(5)});
                    double[] s = sums.computeIfAbsent(route, k -> new double[4]);
                    s[0] += r.getLong(5);
                    s[1] += r.getLong(6);
                    s[2] += r.getLong(7);
                    s[3] += r.getDouble(8);
                });
        List<Review.EstimationError> out = new ArrayList<>();
        buckets.forEach((route, b) -> {
            double[] s = sums.get(route);
            long n = (long) s[0];
            out.add(new Review.EstimationError(route.profile(), route.deployment(), route.dimension(), n, s[3] / n,
                    Buckets.ratioOf((int) quantile(b, n, 0.50)), Buckets.ratioOf((int) quantile(b, n, 0.95)),
                    s[1] == 0 ? 0 : s[2] / s[1]));
        });
        return out;
    }

    private List<Review.StrandedQuota> stranded(RollupSpan span) {
        List<Review.StrandedQuota> out = new ArrayList<>();
        run("SELECT deployment, SUM(settled), SUM(reserved_input), SUM(used_input), SUM(stranded_input), "
                + "SUM(overage_input), SUM(reserved_output), SUM(used_output), SUM(stranded_output), "
                + "SUM(overage_output) FROM attempt_rollup WHERE " + RollupSpan.WHERE
                + " GROUP BY deployment HAVING SUM(settled) > 0 ORDER BY deployment", span, r -> {
                    String d = r.getString(1);
                    long settled = r.getLong(2);
                    out.add(new Review.StrandedQuota(d, "input_tpm", settled, r.getLong(3), r.getLong(4), r.getLong(5),
                            r.getLong(6)));
                    out.add(new Review.StrandedQuota(d, "output_tpm", settled, r.getLong(7), r.getLong(8),
                            r.getLong(9), r.getLong(10)));
                });
        return out;
    }

    private List<Review.CacheHeadroom> cacheHeadroom(RollupSpan span) {
        List<Review.CacheHeadroom> out = new ArrayList<>();
        run("SELECT deployment, SUM(input_tokens) + SUM(cache_read_tokens), SUM(cache_read_tokens), "
                + "SUM(uncounted_cache_read) FROM attempt_rollup WHERE " + RollupSpan.WHERE
                + " GROUP BY deployment HAVING SUM(cache_read_tokens) > 0 ORDER BY SUM(uncounted_cache_read) DESC, "
                + "deployment", span, r -> out.add(new Review.CacheHeadroom(r.getString(1), r.getLong(2), r.getLong(3),
                        r.getLong(4))));
        return out;
    }

    private List<Review.RetryAfters> retryAfter(RollupSpan span) {
        record Source(String source, String provider, String limiter) {}
        Map<Source, List<long[]>> buckets = new LinkedHashMap<>();
        Map<Source, long[]> sums = new LinkedHashMap<>();
        run("SELECT source, provider, limiter, bucket, SUM(samples), SUM(total_ms), MAX(max_ms) FROM retry_after_rollup "
                + "WHERE " + RollupSpan.WHERE + " GROUP BY source, provider, limiter, bucket "
                + "ORDER BY source DESC, provider, limiter, bucket", span, r -> {
                    Source s = new Source(r.getString(1), r.getString(2), r.getString(3));
                    buckets.computeIfAbsent(s, k -> new ArrayList<>()).add(new long[] {r.getInt(4), r.getLong(5)});
                    long[] t = sums.computeIfAbsent(s, k -> new long[3]);
                    t[0] += r.getLong(5);
                    t[1] += r.getLong(6);
                    t[2] = Math.max(t[2], r.getLong(7));
                });
        List<Review.RetryAfters> out = new ArrayList<>();
        buckets.forEach((s, b) -> {
            long[] t = sums.get(s);
            long max = t[2];
            out.add(new Review.RetryAfters(s.source(), s.provider(), s.limiter(), t[0], (double) t[1] / t[0],
                    Math.min(max, Buckets.retryAfterUpperEdge((int) quantile(b, t[0], 0.50))),
                    Math.min(max, Buckets.retryAfterUpperEdge((int) quantile(b, t[0], 0.95))), max));
        });
        return out;
    }

    private List<Review.TopConsumer> topConsumers(RollupSpan span) {
        List<Review.TopConsumer> out = new ArrayList<>();
        for (String dim : CONSUMED) {
            long[] total = new long[1];
            run("SELECT SUM(" + dim + ") FROM usage_rollup WHERE " + RollupSpan.WHERE + " AND api_key <> ''", span,
                    r -> total[0] = r.getLong(1));
            int[] rank = {0};
            run("SELECT tenant, api_key, SUM(" + dim + ") AS amount FROM usage_rollup WHERE " + RollupSpan.WHERE
                    + " AND api_key <> '' GROUP BY tenant, api_key HAVING SUM(" + dim + ") > 0 "
                    + "ORDER BY amount DESC, tenant, api_key LIMIT " + TOP, span, r -> {
                        long amount = r.getLong(3);
                        out.add(new Review.TopConsumer(dim, ++rank[0], r.getString(1), r.getString(2), amount,
                                (double) amount / total[0]));
                    });
        }
        return out;
    }

    private List<Review.Borrowing> borrowing(RollupSpan span) {
        List<Review.Borrowing> out = new ArrayList<>();
        run("SELECT tenant, SUM(requests), SUM(borrowed), SUM(input_tokens), SUM(borrowed_input), SUM(output_tokens), "
                + "SUM(borrowed_output) FROM usage_rollup WHERE " + RollupSpan.WHERE
                + " AND tenant <> '' GROUP BY tenant ORDER BY SUM(borrowed) DESC, SUM(requests) DESC, tenant", span,
                r -> out.add(new Review.Borrowing(r.getString(1), r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5),
                        r.getLong(6), r.getLong(7))));
        return out;
    }

    /**
     * The bucket holding the {@code q} quantile (nearest rank) of {@code n} samples, given
     * (bucket, count) pairs in bucket order.
     */
    static long quantile(List<long[]> buckets, long n, double q) {
        long rank = Math.max(1, (long) Math.ceil(q * n));
        long seen = 0;
        for (long[] b : buckets) {
            seen += b[1];
            if (seen >= rank) {
                return b[0];
            }
        }
        return buckets.get(buckets.size() - 1)[0];
    }

    private interface RowReader {
        void read(ResultSet r) throws SQLException;
    }

    private void run(String sql, RollupSpan span, RowReader reader) {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(sql)) {
            span.bind(s, 1);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    reader.read(r);
                }
            }
        } catch (SQLException e) {
            throw new LedgerException("ledger: query on " + db.describe() + " failed: " + e.getMessage(), e);
        }
    }
}
