package dev.sluice.gateway.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.control.Actor;
import dev.sluice.runtime.control.ControlPlane;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.TokenCounts;
import dev.sluice.runtime.explain.RecentRequests;
import dev.sluice.runtime.explain.RequestExplanation;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Recent requests and the explanation of one: {@code GET /admin/requests/recent} from the
 * in-memory ring ({@link RecentRequests}), {@code GET /admin/explain/{trace_id}} from the ring or,
 * once the request has left it, the usage ledger (on a worker: a database read). The words come
 * from {@link RequestExplanation}; this class only shapes JSON. A partner sees the requests of keys
 * in its own subtree; a request without a known key is nobody's subtree but the admin's.
 */
final class RequestRoutes {

    /** Longest list {@code /admin/requests/recent} answers. */
    static final int MAX_RECENT = 500;

    private final Vertx vertx;
    private final ControlPlane control;
    private final RecentRequests recent;
    private final Optional<LedgerQueries> ledger;

    private RequestRoutes(Vertx vertx, ControlPlane control, RecentRequests recent, Optional<LedgerQueries> ledger) {
        this.vertx = vertx;
        this.control = control;
        this.recent = recent;
        this.ledger = ledger;
    }

    static void install(AdminRouter r, Vertx vertx, ControlPlane control, RecentRequests recent,
            Optional<LedgerQueries> ledger) {
        RequestRoutes m = new RequestRoutes(vertx, control, recent, ledger);
        r.add(HttpMethod.GET, "/admin/requests/recent", Access.READ, m::recent);
        r.add(HttpMethod.GET, "/admin/explain/{trace_id}", Access.READ, m::explain);
    }

    private void recent(AdminExchange x) {
        String limitText = x.query("limit").orElse("100");
        long limit;
        try {
            limit = Long.parseLong(limitText);
        } catch (NumberFormatException e) {
            limit = -1;
        }
        if (limit < 1 || limit > MAX_RECENT) {
            x.error(400, "invalid_value", "limit: " + limitText + " (expected: 1 to " + MAX_RECENT + ")",
                    Optional.of("limit"));
            return;
        }
        String statusText = x.query("status").orElse("all");
        Optional<RequestExplanation.Filter> filter = RequestExplanation.Filter.byWireName(statusText);
        if (filter.isEmpty()) {
            x.error(400, "invalid_value", "status: \"" + statusText + "\" (expected: one of rejected, slow, all)",
                    Optional.of("status"));
            return;
        }
        Actor a = actor(x);
        List<RequestEvent> events = recent.newest((int) limit, e -> filter.get().accepts(e) && mayRead(a, e));
        ObjectNode out = AdminExchange.JSON.createObjectNode().put("status", filter.get().wireName());
        ArrayNode items = out.putArray("items");
        for (RequestEvent e : events) {
            items.add(summary(e));
        }
        out.put("capacity", recent.capacity());
        x.json(200, out);
    }

    private void explain(AdminExchange x) {
        String traceId = x.param("trace_id");
        Optional<String> atText = x.query("at");
        Optional<Instant> at;
        try {
            at = atText.map(Instant::parse);
        } catch (DateTimeParseException e) {
            x.error(400, "invalid_value", "at: \"" + atText.get() + "\" (expected: an instant such as "
                    + "2026-03-02T10:15:00Z, when the request arrived, to within 10 minutes)", Optional.of("at"));
            return;
        }
        Actor a = actor(x);
        Optional<RequestEvent> held = recent.byTrace(traceId);
        if (held.isPresent()) {
            answer(x, a, traceId, held, "memory");
            return;
        }
        if (ledger.isEmpty()) {
            answer(x, a, traceId, Optional.empty(), "memory");
            return;
        }
        // The ledger finds a request by the time around it: the one given, else the one a trace id
        // Sluice made carries, else the last hour (LedgerQueries.request).
        vertx.<Optional<RequestEvent>>executeBlocking(() -> at.isPresent() ? ledger.get().request(traceId, at.get())
                : ledger.get().request(traceId), false).onComplete(r -> {
            if (r.succeeded()) {
                answer(x, a, traceId, r.result(), "ledger");
            } else {
                x.error(503, "ledger_unavailable", "The usage ledger could not be read: "
                        + r.cause().getClass().getSimpleName() + ".", Optional.empty());
            }
        });
    }

    private void answer(AdminExchange x, Actor a, String traceId, Optional<RequestEvent> found, String source) {
        // A partner is told the same as for an unknown trace: whether another tenant's request exists is not its to know.
        if (found.isEmpty() || !mayRead(a, found.get())) {
            x.error(404, "unknown_trace", "No request with trace id " + traceId + " is held in memory"
                    + (ledger.isPresent() ? " or recorded in the ledger" : " (the ledger is off)")
                    + " that this token may read" + (ledger.isPresent() && x.query("at").isEmpty()
                            ? " (the ledger was read in the last hour and at the time a trace id Sluice made "
                                    + "carries; for a caller's older trace give ?at= its time)" : "")
                    + ".", Optional.of("trace_id"));
            return;
        }
        x.json(200, explanation(found.get()).put("source", source));
    }

    private boolean mayRead(Actor a, RequestEvent e) {
        if (a.scope().kind() != AdminScope.Kind.PARTNER) {
            return true;
        }
        return e.caller().map(c -> control.mayRead(a, Scope.of(ScopeLevel.API_KEY, c.apiKeyId()))).orElse(false);
    }

    /** The line of a recent-requests list. */
    static ObjectNode summary(RequestEvent e) {
        ObjectNode n = AdminExchange.JSON.createObjectNode().put("trace_id", e.traceId())
                .put("time", Instant.ofEpochMilli(e.receivedAtEpochMillis()).toString());
        who(n, e);
        n.put("status", e.status()).put("decision", e.decision());
        put(n, "gateway_decision", e.gatewayDecision());
        n.put("queue_wait_ms", e.queueWaitNanos() / 1_000_000).put("reason", RequestExplanation.reason(e));
        return n;
    }

    /** The whole decision of one request. */
    static ObjectNode explanation(RequestEvent e) {
        ObjectNode n = AdminExchange.JSON.createObjectNode().put("trace_id", e.traceId()).put("span_id", e.spanId())
                .put("time", Instant.ofEpochMilli(e.receivedAtEpochMillis()).toString()).put("operation", e.operation());
        who(n, e);
        n.put("status", e.status()).put("decision", e.decision());
        put(n, "gateway_decision", e.gatewayDecision());
        put(n, "code", e.code());
        n.put("sentence", RequestExplanation.sentence(e)).put("reason", RequestExplanation.reason(e));
        if (e.decider().isPresent()) {
            Decider d = e.decider().get();
            ObjectNode by = n.putObject("decided_by").put("scope", d.scope()).put("dimension", d.limiter());
            put(by, "window", d.window());
        } else {
            n.putNull("decided_by");
        }
        ObjectNode tokens = n.putObject("tokens");
        tokens.set("estimate", counts(e.estimate()));
        tokens.set("actual", counts(e.usage()));
        tokens.put("actual_reported_by_provider", e.usageReported());
        ObjectNode wait = n.putObject("queue").put("wait_ms", e.queueWaitNanos() / 1_000_000);
        Optional<Decider> d = e.decider();
        millis(wait, "predicted_wait_ms", d.map(Decider::predictedWaitNanos).orElse(OptionalLong.empty()));
        millis(wait, "budget_ms", d.map(Decider::budgetNanos).orElse(OptionalLong.empty()));
        put(wait, "bound_by", d.flatMap(Decider::boundBy));
        millis(wait, "expected_call_ms", d.map(Decider::serviceNanos).orElse(OptionalLong.empty()));
        put(n, "mode", e.mode());
        ObjectNode involved = n.putObject("involved").put("reserve", d.map(Decider::reserve).orElse(false))
                .put("pause", d.map(Decider::paused).orElse(false) || "paused".equals(e.gatewayDecision().orElse("")))
                .put("borrowing", e.borrowed()).put("brownout", e.brownout())
                .put("retries", RequestExplanation.retries(e)).put("fallback", RequestExplanation.fellBack(e));
        put(involved, "fallback_reason", e.fallback());
        n.put("latency_ms", e.latencyNanos() / 1_000_000);
        millis(n, "time_to_first_token_ms", e.timeToFirstTokenNanos());
        if (e.retryAfterMillis().isPresent()) {
            n.put("retry_after_ms", e.retryAfterMillis().getAsLong());
        }
        ArrayNode attempts = n.putArray("attempts");
        for (AttemptEvent a : e.attemptEvents()) {
            ObjectNode t = attempts.addObject().put("attempt", a.attempt()).put("deployment", a.deployment())
                    .put("provider", a.provider()).put("provider_model", a.providerModel())
                    .put("result", a.result().wireName()).put("status", a.status()).put("reason", a.reason());
            put(t, "limit_hit", a.limitHit());
            if (a.providerRetryAfterMillis().isPresent()) {
                t.put("provider_retry_after_ms", a.providerRetryAfterMillis().getAsLong());
            }
            t.set("estimate", counts(a.estimate()));
            t.set("actual", counts(a.usage()));
            t.put("settlement", a.settlement().wireName()).put("latency_ms", a.latencyNanos() / 1_000_000);
            if (a.retryDelayMillis().isPresent()) {
                t.put("retried_after_ms", a.retryDelayMillis().getAsLong());
            }
        }
        return n;
    }

    private static void who(ObjectNode n, RequestEvent e) {
        if (e.caller().isPresent()) {
            var c = e.caller().get();
            n.put("org", c.org()).put("tenant", c.tenant()).put("team", c.team()).put("key_id", c.apiKeyId());
        } else {
            n.putNull("org").putNull("tenant").putNull("team").putNull("key_id");
        }
        put(n, "profile", e.profile());
        put(n, "deployment", e.deployment());
        put(n, "class", e.trafficClass());
    }

    private static ObjectNode counts(TokenCounts t) {
        return AdminExchange.JSON.createObjectNode().put("input", t.input()).put("output", t.output())
                .put("cache_read", t.cacheRead());
    }

    private static void put(ObjectNode n, String field, Optional<String> v) {
        if (v.isPresent()) {
            n.put(field, v.get());
        } else {
            n.putNull(field);
        }
    }

    private static void millis(ObjectNode n, String field, OptionalLong nanos) {
        if (nanos.isPresent()) {
            n.put(field, nanos.getAsLong() / 1_000_000);
        } else {
            n.putNull(field);
        }
    }

    private static Actor actor(AdminExchange x) {
        return new Actor(x.principal().tokenId(), x.principal().scope(), x.principal().oversubscription());
    }
}
