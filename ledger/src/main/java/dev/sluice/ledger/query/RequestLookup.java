package dev.sluice.ledger.query;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.ledger.LedgerException;
import dev.sluice.ledger.db.Database;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One request read back from its rows, as the {@link RequestEvent} that was written: what
 * {@code /admin/explain} reads once the request has left the gateway's memory. The one read of
 * per-request rows: by the rows' key, arrival first, over ranges of arrival times in turn, each
 * range's keys read for the trace id (there is no index on the trace id alone, see Migrations step 9).
 */
final class RequestLookup {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REQUEST = "SELECT trace_id, span_id, received_at, operation, org, tenant, team, api_key, "
            + "profile, traffic_class, deployment, provider, provider_model, provider_scope, streaming, estimated_input, "
            + "estimated_output, estimated_cache_read, input_tokens, output_tokens, cache_read_tokens, usage_reported, "
            + "decision, gateway_decision, decider_limiter, decider_scope, decider_window, code, queue_wait_ns, mode, "
            + "brownout, borrowed, attempts, fallback, status, retry_after_ms, latency_ns, ttft_ns, decider_paused, "
            + "decider_reserve, predicted_wait_ns, service_ns, budget_ns, bound_by, attempt_started_at, attempt_result, "
            + "attempt_status, attempt_reason, attempt_limit_hit, attempt_provider_retry_after_ms, "
            + "attempt_estimated_input, attempt_estimated_output, attempt_estimated_cache_read, attempt_input_tokens, "
            + "attempt_output_tokens, attempt_cache_read_tokens, attempt_usage_reported, attempt_cache_reads_counted, "
            + "attempt_settlement, attempt_latency_ns, attempt_ttft_ns, attempt_retry_delay_ms FROM requests "
            + "WHERE received_at BETWEEN ? AND ? AND trace_id = ? ORDER BY received_at DESC, span_id DESC";
    private static final String ATTEMPTS = "SELECT attempt, deployment, provider, provider_model, provider_scope, "
            + "started_at, result, status, reason, limit_hit, provider_retry_after_ms, estimated_input, estimated_output, "
            + "estimated_cache_read, input_tokens, output_tokens, cache_read_tokens, usage_reported, "
            + "cache_reads_counted, settlement, latency_ns, ttft_ns, retry_delay_ms FROM attempts "
            + "WHERE started_at BETWEEN ? AND ? AND trace_id = ? AND span_id = ? ORDER BY attempt";

    /**
     * How far around the request's own span its attempts' starts are looked for: attempts start
     * between its arrival and its end, and this allows for the wall clock being stepped meanwhile.
     */
    static final long ATTEMPT_WINDOW_MILLIS = 10 * 60_000L;

    /** How far either side of a time a request's arrival is looked for (LedgerQueries.AROUND). */
    static final long AROUND_MILLIS = 10 * 60_000L;

    /** Arrival times from {@code from} to {@code to}, epoch milliseconds, both included. */
    record Range(long from, long to) {}

    /** {@link #AROUND_MILLIS} either side of {@code epochMillis}. */
    static Range around(long epochMillis) {
        return new Range(epochMillis - AROUND_MILLIS, epochMillis + AROUND_MILLIS);
    }

    private RequestLookup() {}

    /** The newest request of {@code traceId} in the first of {@code ranges} that holds one. */
    static Optional<RequestEvent> find(Database db, String traceId, List<Range> ranges) {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(REQUEST)) {
            s.setMaxRows(1);
            for (Range range : ranges) {
                s.setLong(1, range.from());
                s.setLong(2, range.to());
                s.setString(3, traceId);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        Optional<AttemptEvent> folded = folded(r, traceId);
                        if (folded.isPresent()) {
                            return Optional.of(request(r, List.of(folded.get())));
                        }
                        String spanId = r.getString(2);
                        long from = r.getLong(3) - ATTEMPT_WINDOW_MILLIS;
                        long to = r.getLong(3) + r.getLong(37) / 1_000_000 + ATTEMPT_WINDOW_MILLIS;
                        return Optional.of(request(r, attempts(c, traceId, spanId, from, to)));
                    }
                }
            }
            return Optional.empty();
        } catch (SQLException e) {
            throw new LedgerException("ledger: reading trace " + traceId + " from " + db.describe() + " failed: "
                    + e.getMessage(), e);
        }
    }

    /**
     * The request's one attempt kept in its own row (migration 10), on the deployment, provider,
     * model and scope the request names; empty when its attempts are rows of {@code attempts}.
     */
    private static Optional<AttemptEvent> folded(ResultSet r, String traceId) throws SQLException {
        long startedAt = r.getLong(45);
        if (r.wasNull()) {
            return Optional.empty();
        }
        return Optional.of(new AttemptEvent(traceId, 1, r.getString(11), r.getString(12), r.getString(13),
                scope(r.getString(14)), startedAt, AttemptResult.valueOf(upper(r.getString(46))), r.getInt(47),
                r.getString(48), text(r, 49), number(r, 50), new TokenCounts(r.getLong(51), r.getLong(52), r.getLong(53)),
                new TokenCounts(r.getLong(54), r.getLong(55), r.getLong(56)), r.getInt(57) == 1, r.getInt(58) == 1,
                Settlement.valueOf(upper(r.getString(59))), r.getLong(60), number(r, 61), number(r, 62)));
    }

    /** The request's attempts, by their key: their start (in {@code from..to}), then their ids. */
    private static List<AttemptEvent> attempts(Connection c, String traceId, String spanId, long from, long to)
            throws SQLException {
        List<AttemptEvent> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(ATTEMPTS)) {
            s.setLong(1, from);
            s.setLong(2, to);
            s.setString(3, traceId);
            s.setString(4, spanId);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new AttemptEvent(traceId, r.getInt(1), r.getString(2), r.getString(3), r.getString(4),
                            scope(r.getString(5)), r.getLong(6), AttemptResult.valueOf(upper(r.getString(7))),
                            r.getInt(8), r.getString(9), text(r, 10), number(r, 11),
                            new TokenCounts(r.getLong(12), r.getLong(13), r.getLong(14)),
                            new TokenCounts(r.getLong(15), r.getLong(16), r.getLong(17)), r.getInt(18) == 1,
                            r.getInt(19) == 1, Settlement.valueOf(upper(r.getString(20))), r.getLong(21), number(r, 22),
                            number(r, 23)));
                }
            }
        }
        return out;
    }

    private static RequestEvent request(ResultSet r, List<AttemptEvent> attempts) throws SQLException {
        Optional<Caller> caller = r.getString(8) == null ? Optional.empty()
                : Optional.of(new Caller(r.getString(5), r.getString(6), r.getString(7), r.getString(8)));
        Optional<Decider> decider = r.getString(25) == null ? Optional.empty()
                : Optional.of(new Decider(r.getString(25), r.getString(26), text(r, 27), r.getInt(39) == 1,
                        r.getInt(40) == 1, number(r, 41), number(r, 42), number(r, 43),
                        "deadline".equals(r.getString(44))));
        return new RequestEvent(r.getString(1), r.getString(2), r.getLong(3), r.getString(4), caller, text(r, 9),
                text(r, 10), text(r, 11), text(r, 12), text(r, 13), scope(r.getString(14)), r.getInt(15) == 1,
                new TokenCounts(r.getLong(16), r.getLong(17), r.getLong(18)),
                new TokenCounts(r.getLong(19), r.getLong(20), r.getLong(21)), r.getInt(22) == 1, r.getString(23),
                text(r, 24), decider, text(r, 28), r.getLong(29), text(r, 30), r.getInt(31) == 1, r.getInt(32) == 1,
                r.getInt(33), text(r, 34), r.getInt(35), number(r, 36), r.getLong(37), number(r, 38), attempts);
    }

    private static Optional<String> text(ResultSet r, int column) throws SQLException {
        return Optional.ofNullable(r.getString(column));
    }

    private static OptionalLong number(ResultSet r, int column) throws SQLException {
        long v = r.getLong(column);
        return r.wasNull() ? OptionalLong.empty() : OptionalLong.of(v);
    }

    private static String upper(String wireName) {
        return wireName.toUpperCase(Locale.ROOT);
    }

    private static Map<String, String> scope(String json) {
        try {
            return JSON.readValue(json, new TypeReference<Map<String, String>>() {});
        } catch (IOException e) {
            throw new LedgerException("ledger: a provider_scope that is not a JSON object: " + e.getMessage(), e);
        }
    }
}
