package dev.sluice.ledger.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One row per request and one per attempt: every fact of the events, in the columns of migrations 1,
 * 4 and 5 (keyed as migration 9 made the request rows, 8 the attempt rows).
 */
final class EventRows {

    /** The request row as migration 1 made it, without the columns of migrations 4 and 5: for tests of the upgrade. */
    static final String INSERT_REQUEST_V1;

    /** The request row as migrations 1 to 8 keyed it (primary key trace id, span id): for tests of the upgrade. */
    static final String INSERT_REQUEST_V8;

    /** The columns of migrations 1, 4 and 5: every fact of the request itself. */
    private static final String REQUEST_COLUMNS = "trace_id, span_id, received_at, operation, org, "
            + "tenant, team, api_key, profile, traffic_class, deployment, provider, provider_model, provider_scope, "
            + "streaming, estimated_input, estimated_output, estimated_cache_read, input_tokens, output_tokens, "
            + "cache_read_tokens, usage_reported, decision, gateway_decision, decider_limiter, decider_scope, "
            + "decider_window, code, queue_wait_ns, mode, brownout, borrowed, attempts, fallback, status, "
            + "retry_after_ms, latency_ns, ttft_ns, writer, estimated_cost_micros, cost_micros, decider_paused, "
            + "decider_reserve, predicted_wait_ns, service_ns, budget_ns, bound_by";

    /** The columns of migration 10: the request's one attempt, when {@link #folds} it. */
    static final String ATTEMPT_COLUMNS = "attempt_started_at, attempt_result, attempt_status, attempt_reason, "
            + "attempt_limit_hit, attempt_provider_retry_after_ms, attempt_estimated_input, attempt_estimated_output, "
            + "attempt_estimated_cache_read, attempt_input_tokens, attempt_output_tokens, attempt_cache_read_tokens, "
            + "attempt_usage_reported, attempt_cache_reads_counted, attempt_settlement, attempt_latency_ns, "
            + "attempt_ttft_ns, attempt_retry_delay_ms";

    /** The SQL types of {@link #ATTEMPT_COLUMNS}, for their NULLs (PostgreSQL checks a NULL's type). */
    private static final int[] FOLDED_TYPES = {Types.BIGINT, Types.VARCHAR, Types.INTEGER, Types.VARCHAR,
            Types.VARCHAR, Types.BIGINT, Types.BIGINT, Types.BIGINT, Types.BIGINT, Types.BIGINT, Types.BIGINT,
            Types.BIGINT, Types.INTEGER, Types.INTEGER, Types.VARCHAR, Types.BIGINT, Types.BIGINT, Types.BIGINT};

    static final String INSERT_REQUEST = "INSERT INTO requests (" + REQUEST_COLUMNS + ", " + ATTEMPT_COLUMNS
            + ") VALUES (" + marks(65) + ") ON CONFLICT (received_at, trace_id, span_id) DO NOTHING";

    static final String INSERT_ATTEMPT = "INSERT INTO attempts (trace_id, span_id, attempt, started_at, deployment, "
            + "provider, provider_model, provider_scope, result, status, reason, limit_hit, provider_retry_after_ms, "
            + "estimated_input, estimated_output, estimated_cache_read, input_tokens, output_tokens, "
            + "cache_read_tokens, usage_reported, cache_reads_counted, settlement, latency_ns, ttft_ns, "
            + "retry_delay_ms) VALUES (" + marks(25) + ") ON CONFLICT (started_at, trace_id, span_id, attempt) DO NOTHING";

    static {
        INSERT_REQUEST_V8 = "INSERT INTO requests (" + REQUEST_COLUMNS + ") VALUES (" + marks(47)
                + ") ON CONFLICT (trace_id, span_id) DO NOTHING";
        INSERT_REQUEST_V1 = INSERT_REQUEST_V8.replace(", estimated_cost_micros, cost_micros, decider_paused, "
                + "decider_reserve, predicted_wait_ns, service_ns, budget_ns, bound_by) VALUES (" + marks(47),
                ") VALUES (" + marks(39));
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private EventRows() {}

    static void bindRequest(PreparedStatement s, RequestEvent e, String writer) throws SQLException {
        bindRequest(s, e, writer, new java.util.HashMap<>());
    }

    /** Binds {@link #INSERT_REQUEST_V8}: the request's own 47 columns, as schemas 5 to 9 have them. */
    static void bindRequestV8(PreparedStatement s, RequestEvent e, String writer) throws SQLException {
        bindRequestV8(s, e, writer, new java.util.HashMap<>());
    }

    /** Binds {@link #INSERT_REQUEST}: the request's facts and, if {@link #folds} it, its one attempt's. */
    static void bindRequest(PreparedStatement s, RequestEvent e, String writer, Map<Map<String, String>, String> json)
            throws SQLException {
        int i = bindRequestV8(s, e, writer, json);
        if (folds(e)) {
            bindFolded(s, i, e.attemptEvents().get(0));
        } else {
            for (int k = 0; k < FOLDED_TYPES.length; k++) {
                s.setNull(i + k, FOLDED_TYPES[k]);
            }
        }
    }

    /** Binds the request's own 47 columns (those of migrations 1, 4 and 5); returns the next parameter's index. */
    static int bindRequestV8(PreparedStatement s, RequestEvent e, String writer, Map<Map<String, String>, String> json)
            throws SQLException {
        int i = bindFacts(s, e, writer, json);
        s.setLong(i++, e.estimate().costMicros());
        s.setLong(i++, e.usage().costMicros());
        bindDecision(s, i, e.decider());
        return i + 6;
    }

    /**
     * Whether {@code e}'s attempts are kept in its own row (migration 10): when it made exactly one,
     * on the deployment, provider, model and scope the request names, so that only the attempt's own
     * facts need columns. Any other request's attempts are rows of {@code attempts}.
     */
    static boolean folds(RequestEvent e) {
        if (e.attemptEvents().size() != 1) {
            return false;
        }
        AttemptEvent a = e.attemptEvents().get(0);
        return a.attempt() == 1 && e.deployment().equals(Optional.of(a.deployment()))
                && e.provider().equals(Optional.of(a.provider()))
                && e.providerModel().equals(Optional.of(a.providerModel()))
                && e.providerScope().equals(a.providerScope());
    }

    private static void bindFolded(PreparedStatement s, int from, AttemptEvent a) throws SQLException {
        s.setLong(from, a.startedAtEpochMillis());
        bindOutcome(s, from + 1, a);
    }

    /** An attempt's columns from {@code result} to {@code retry_delay_ms}, the same in its own row and folded. */
    private static void bindOutcome(PreparedStatement s, int from, AttemptEvent a) throws SQLException {
        int i = from;
        s.setString(i++, a.result().wireName());
        s.setInt(i++, a.status());
        s.setString(i++, a.reason());
        text(s, i++, a.limitHit());
        number(s, i++, a.providerRetryAfterMillis());
        s.setLong(i++, a.estimate().input());
        s.setLong(i++, a.estimate().output());
        s.setLong(i++, a.estimate().cacheRead());
        s.setLong(i++, a.usage().input());
        s.setLong(i++, a.usage().output());
        s.setLong(i++, a.usage().cacheRead());
        s.setInt(i++, a.usageReported() ? 1 : 0);
        s.setInt(i++, a.cacheReadsCounted() ? 1 : 0);
        s.setString(i++, a.settlement().wireName());
        s.setLong(i++, a.latencyNanos());
        number(s, i++, a.timeToFirstTokenNanos());
        number(s, i, a.retryDelayMillis());
    }

    /** Binds {@link #INSERT_REQUEST_V1}: the row as the schema was before migrations 4 and 5. */
    static void bindRequestV1(PreparedStatement s, RequestEvent e, String writer) throws SQLException {
        bindFacts(s, e, writer, new java.util.HashMap<>());
    }

    /** Binds every column of migration 1; returns the next parameter's index. */
    private static int bindFacts(PreparedStatement s, RequestEvent e, String writer, Map<Map<String, String>, String> json)
            throws SQLException {
        Optional<Caller> caller = e.caller();
        Optional<Decider> decider = e.decider();
        int i = 1;
        s.setString(i++, e.traceId());
        s.setString(i++, e.spanId());
        s.setLong(i++, e.receivedAtEpochMillis());
        s.setString(i++, e.operation());
        text(s, i++, caller.map(Caller::org));
        text(s, i++, caller.map(Caller::tenant));
        text(s, i++, caller.map(Caller::team));
        text(s, i++, caller.map(Caller::apiKeyId));
        text(s, i++, e.profile());
        text(s, i++, e.trafficClass());
        text(s, i++, e.deployment());
        text(s, i++, e.provider());
        text(s, i++, e.providerModel());
        s.setString(i++, json(e.providerScope(), json));
        s.setInt(i++, e.streaming() ? 1 : 0);
        s.setLong(i++, e.estimate().input());
        s.setLong(i++, e.estimate().output());
        s.setLong(i++, e.estimate().cacheRead());
        s.setLong(i++, e.usage().input());
        s.setLong(i++, e.usage().output());
        s.setLong(i++, e.usage().cacheRead());
        s.setInt(i++, e.usageReported() ? 1 : 0);
        s.setString(i++, e.decision());
        text(s, i++, e.gatewayDecision());
        text(s, i++, decider.map(Decider::limiter));
        text(s, i++, decider.map(Decider::scope));
        text(s, i++, decider.flatMap(Decider::window));
        text(s, i++, e.code());
        s.setLong(i++, e.queueWaitNanos());
        text(s, i++, e.mode());
        s.setInt(i++, e.brownout() ? 1 : 0);
        s.setInt(i++, e.borrowed() ? 1 : 0);
        s.setInt(i++, e.attempts());
        text(s, i++, e.fallback());
        s.setInt(i++, e.status());
        number(s, i++, e.retryAfterMillis());
        s.setLong(i++, e.latencyNanos());
        number(s, i++, e.timeToFirstTokenNanos());
        s.setString(i++, writer);
        return i;
    }

    /** Binds the columns of migration 5: the rest of the decider, NULL where no limiter decided. */
    private static void bindDecision(PreparedStatement s, int from, Optional<Decider> decider) throws SQLException {
        int i = from;
        flag(s, i++, decider.map(Decider::paused));
        flag(s, i++, decider.map(Decider::reserve));
        number(s, i++, decider.map(Decider::predictedWaitNanos).orElse(OptionalLong.empty()));
        number(s, i++, decider.map(Decider::serviceNanos).orElse(OptionalLong.empty()));
        number(s, i++, decider.map(Decider::budgetNanos).orElse(OptionalLong.empty()));
        text(s, i, decider.flatMap(Decider::boundBy));
    }

    private static void flag(PreparedStatement s, int i, Optional<Boolean> v) throws SQLException {
        if (v.isPresent()) {
            s.setInt(i, v.get() ? 1 : 0);
        } else {
            s.setNull(i, Types.INTEGER);
        }
    }

    static void bindAttempt(PreparedStatement s, RequestEvent r, AttemptEvent a, Map<Map<String, String>, String> json)
            throws SQLException {
        int i = 1;
        s.setString(i++, r.traceId());
        s.setString(i++, r.spanId());
        s.setInt(i++, a.attempt());
        s.setLong(i++, a.startedAtEpochMillis());
        s.setString(i++, a.deployment());
        s.setString(i++, a.provider());
        s.setString(i++, a.providerModel());
        s.setString(i++, json(a.providerScope(), json));
        bindOutcome(s, i, a);
    }

    /**
     * The scope labels as JSON, through {@code cache}: a gateway has a few scopes (one per
     * deployment), met again in every row. Cleared when it grows past a few hundred, so that a
     * stream of distinct scopes cannot grow it without bound.
     */
    static String json(Map<String, String> scope, Map<Map<String, String>, String> cache) {
        String j = cache.get(scope);
        if (j == null) {
            if (cache.size() > 256) {
                cache.clear();
            }
            j = json(scope);
            cache.put(scope, j);
        }
        return j;
    }

    /** The scope labels as a JSON object, keys in order, so equal scopes are equal text. */
    static String json(Map<String, String> scope) {
        if (scope.isEmpty()) {
            return "{}";
        }
        try {
            return JSON.writeValueAsString(new TreeMap<>(scope));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings always serialises", e);
        }
    }

    private static void text(PreparedStatement s, int i, Optional<String> v) throws SQLException {
        if (v.isPresent()) {
            s.setString(i, v.get());
        } else {
            s.setNull(i, Types.VARCHAR);
        }
    }

    private static void number(PreparedStatement s, int i, OptionalLong v) throws SQLException {
        if (v.isPresent()) {
            s.setLong(i, v.getAsLong());
        } else {
            s.setNull(i, Types.BIGINT);
        }
    }

    private static String marks(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
    }
}
