package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.adapt.ModeConfig;
import dev.sluice.estimate.EstimatorProfile;
import dev.sluice.estimate.PromptShape;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.gateway.auth.Credentials;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.gateway.http.ApiFamily;
import dev.sluice.gateway.http.ErrorBodies;
import dev.sluice.gateway.http.HeaderNames;
import dev.sluice.gateway.http.MalformedRequest;
import dev.sluice.gateway.http.Operation;
import dev.sluice.gateway.http.RejectionView;
import dev.sluice.gateway.http.Refusal;
import dev.sluice.gateway.http.Route;
import dev.sluice.gateway.http.TraceIds;
import dev.sluice.gateway.translate.TranslationException;
import dev.sluice.gateway.upstream.UpstreamClient;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.Rejection;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.Reservation;
import dev.sluice.governor.TrafficClass;
import dev.sluice.governor.Usage;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * One client request on its way through the gateway, on its event loop: read, identify, quote,
 * admit, then hand over to an {@link UpstreamCall}. Owns the two promises: exactly one answer
 * ({@link #finish}) and a reservation that always ends ({@link #settle}/{@link #release}).
 */
final class Exchange {

    /** Of a refused body, at most this much is read and dropped before the connection is closed instead. */
    static final long DRAIN_LIMIT_BYTES = 16L << 20;

    enum State { READING, ADMITTING, UPSTREAM, DONE }

    final GatewayCore core;
    final HttpServerRequest req;
    final HttpServerResponse resp;
    final UpstreamClient client;
    final Context context;
    final String traceId;
    ApiFamily family = ApiFamily.OPENAI;
    Route route;
    KeyConfig key;
    ProfileConfig profile;
    DeploymentConfig deployment;
    TrafficClass trafficClass;
    long deadlineNanos = AdmissionRequest.NO_DEADLINE;
    TokenEstimate estimate;
    String estimateRoute;
    UpstreamPlan plan;
    State state = State.READING;
    boolean clientGone;
    private Reservation reservation;
    private boolean reservationEnded;
    private Buffer body;
    private long refusedBytes;
    private UpstreamCall call;

    Exchange(GatewayCore core, HttpServerRequest req, UpstreamClient client) {
        this.core = core;
        this.req = req;
        this.resp = req.response();
        this.client = client;
        this.context = Vertx.currentContext();
        this.traceId = TraceIds.fromTraceparent(req.getHeader("traceparent"));
    }

    void start() {
        resp.putHeader(HeaderNames.TRACE_ID, traceId);
        resp.closeHandler(v -> onClientGone());
        req.exceptionHandler(e -> onClientGone());
        Optional<MalformedRequest> malformed = MalformedRequest.of(req.decoderResult());
        if (malformed.isPresent()) {
            // The head could not be read, so neither can what follows it: answer and close. The path, when the
            // decoder got that far, still tells whose error shape to use.
            family = Route.dialect(req.path() == null ? "" : req.path(), req.headers(), req.query());
            resp.putHeader("connection", "close");
            fail(malformed.get().status(), malformed.get().code(), malformed.get().reason(), Optional.empty());
            return;
        }
        // Only GET paths are shared between families; a POST's path alone names its route.
        Optional<Route> matched = Route.match(req.method(), req.path(), req.method() == io.vertx.core.http.HttpMethod.GET
                ? Route.dialect(req.path(), req.headers(), req.query()) : ApiFamily.OPENAI);
        if (matched.isEmpty()) {
            family = Route.dialect(req.path(), req.headers(), req.query());
            fail(404, "unknown_route", "Sluice serves no " + req.method() + " " + req.path() + ".", Optional.empty());
            return;
        }
        route = matched.get();
        Operation op = route.operation();
        family = op.family();
        if (op == Operation.HEALTH) {
            answerJson(200, ProxyJson.MAPPER.createObjectNode().put("status", "ok"));
            return;
        }
        if (op == Operation.READY) {
            boolean ready = core.ready();
            answerJson(ready ? 200 : 503, ProxyJson.MAPPER.createObjectNode().put("status", ready ? "ready" : "draining"));
            return;
        }
        key = Credentials.presented(req).flatMap(core.keys::resolve).orElse(null);
        if (key == null) {
            fail(401, "invalid_api_key", "Missing or unknown API key. Send it as 'Authorization: Bearer <key>', "
                    + "'x-api-key' or 'x-goog-api-key'.", Optional.empty());
            return;
        }
        if (op.catalogue()) {
            Optional<ObjectNode> listed = dev.sluice.gateway.http.Catalogue.answer(route, key, core.config);
            if (listed.isPresent()) {
                answerJson(200, listed.get());
            } else {
                fail(404, "model_not_found", "The model '" + route.pathModel().orElse("") + "' does not exist or "
                        + "this API key may not use it.", Optional.of("model"));
            }
            return;
        }
        String type = req.getHeader("content-type");
        if (type != null && !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            fail(415, "unsupported_media_type", "Request bodies must be application/json, not " + type + ".",
                    Optional.empty());
            return;
        }
        long max = core.config.server().maxBodyBytes();
        String length = req.getHeader("content-length");
        long declared = parseLong(length);
        body = Buffer.buffer(declared > 0 && declared <= max ? (int) declared : 1024);
        req.handler(chunk -> {
            if (state != State.READING) {
                refusedBytes += chunk.length();
                if (refusedBytes > DRAIN_LIMIT_BYTES) {
                    req.connection().close();
                }
                return;
            }
            if (body.length() + chunk.length() > max) {
                tooLarge(max, chunk.length());
                return;
            }
            body.appendBuffer(chunk);
        });
        req.endHandler(v -> {
            if (state == State.READING) {
                onBody();
            }
        });
        if (declared > max) {
            tooLarge(max, 0);
        }
    }

    /**
     * Refuses a body over the limit. The client may still be sending it: the rest is read and
     * dropped, because closing a connection with unread data resets it, and a client that is
     * still writing then never reads this answer. A body that goes on past
     * {@link #DRAIN_LIMIT_BYTES} is cut off by closing the connection.
     */
    private void tooLarge(long max, long alreadyRead) {
        refusedBytes = alreadyRead;
        if (parseLong(req.getHeader("content-length")) > DRAIN_LIMIT_BYTES) {
            resp.putHeader("connection", "close");
        }
        body = null;
        fail(413, "request_too_large", "The request body is larger than the " + max + " bytes this gateway accepts.",
                Optional.empty());
    }

    private void onBody() {
        state = State.ADMITTING;
        byte[] raw = body.getBytes();
        Optional<JsonNode> parsed = ProxyJson.parse(raw);
        body = null;
        if (parsed.isEmpty() || !parsed.get().isObject()) {
            fail(400, "invalid_json", "The request body is not a JSON object.", Optional.empty());
            return;
        }
        ObjectNode json = (ObjectNode) parsed.get();
        Operation op = route.operation();
        String model = route.pathModel().orElseGet(() -> json.path("model").isTextual() ? json.path("model").asText() : "");
        if (model.isBlank()) {
            fail(400, "missing_model", "The request names no model.", Optional.of("model"));
            return;
        }
        profile = core.config.profiles().get(model);
        if (profile == null || !key.profiles().contains(model)) {
            fail(404, "model_not_found", "The model '" + model + "' does not exist or this API key may not use it.",
                    Optional.of("model"));
            return;
        }
        deployment = core.config.deployments().get(profile.deployment());
        HeaderNames.model(resp.headers(), profile);
        if (!classAndDeadline()) {
            return;
        }
        String quoteRoute = profile.id() + "/" + trafficClass.wireName();
        estimateRoute = quoteRoute;
        EstimatorProfile estimatorProfile = profile.estimatorProfile();
        PromptShape shape;
        try {
            shape = PromptShapes.of(op, json);
        } catch (IllegalArgumentException e) {
            cannotQuote(e);
            return;
        }
        PromptQuote.quote(context, shape, p -> core.estimator.charsToCount(estimatorProfile, p),
                        () -> core.estimator.estimate(estimatorProfile, quoteRoute, shape))
                .onComplete(r -> {
                    if (r.succeeded()) {
                        onEstimate(json, raw, r.result());
                    } else if (clientGone) {
                        finish();
                    } else if (r.cause() instanceof IllegalArgumentException e) {
                        cannotQuote(e);
                    } else {
                        fail(500, "internal_error", "The request could not be quoted.", Optional.empty());
                    }
                });
    }

    private void cannotQuote(IllegalArgumentException e) {
        fail(400, "invalid_request", "The request cannot be quoted: " + e.getMessage(), Optional.empty());
    }

    /** Continues on the request's context once the prompt is counted, in place or on a worker. */
    private void onEstimate(ObjectNode json, byte[] raw, TokenEstimate quoted) {
        if (clientGone) {
            finish();
            return;
        }
        estimate = quoted;
        Operation op = route.operation();
        if (op == Operation.ANTHROPIC_COUNT_TOKENS || op == Operation.GEMINI_COUNT_TOKENS) {
            // Answered from the estimator: counting never spends provider quota.
            String field = op == Operation.ANTHROPIC_COUNT_TOKENS ? "input_tokens" : "totalTokens";
            answerJson(200, ProxyJson.MAPPER.createObjectNode().put(field, estimate.promptTokens()));
            return;
        }
        try {
            plan = UpstreamPlan.of(op, json, raw, profile, deployment, req.query());
        } catch (UpstreamPlan.Unsupported e) {
            fail(400, "unsupported_route", e.getMessage(), Optional.of("model"));
            return;
        } catch (TranslationException e) {
            fail(400, "invalid_request", e.getMessage(), Optional.ofNullable(e.param()));
            return;
        }
        if (key.paused()) {
            rejectLocally(new Rejection(GatewayDecision.PAUSED, "key_paused", Optional.empty(),
                    Optional.of(Scope.of(ScopeLevel.API_KEY, key.id())), ErrorBodies.MAX_CLIENT_RETRY_MILLIS, false,
                    "The API key " + key.id() + " is paused by an operator; retrying will fail until it is resumed."));
            return;
        }
        RequestPath path = new RequestPath(key.org(), key.tenant(), key.team(), key.id(), profile.id(), deployment.id());
        Demand demand = new Demand(estimate.inputTokens(), estimate.outputTokens(), plan.streaming());
        AdmissionRequest admission = new AdmissionRequest(traceId, path, demand, trafficClass, deadlineNanos);
        if (core.storeBlocks) {
            context.<Decision>executeBlocking(() -> core.governor.admit(admission), false).onComplete(r -> {
                if (r.succeeded()) {
                    onDecision(r.result());
                } else {
                    storeUnavailable();
                }
            });
            return;
        }
        Decision decision;
        try {
            decision = core.governor.admit(admission);
        } catch (RuntimeException e) {
            storeUnavailable();
            return;
        }
        onDecision(decision);
    }

    /** The shared quota store is unreachable and the deployment's policy is to fail closed. */
    private void storeUnavailable() {
        if (clientGone) {
            finish();
            return;
        }
        resp.putHeader("retry-after", "1");
        fail(503, "quota_store_unavailable", "Sluice cannot reach its quota store; the request was not sent.",
                Optional.empty());
    }

    /** The key's class and deadline, or tighter ones from the request headers; never above what the key allows. */
    private boolean classAndDeadline() {
        trafficClass = key.trafficClass();
        String asked = req.getHeader("x-sluice-class");
        if (asked != null) {
            Optional<TrafficClass> c = TrafficClass.byWireName(asked);
            if (c.isEmpty()) {
                fail(400, "invalid_class", "x-sluice-class: '" + asked + "' is not a traffic class (critical, "
                        + "interactive, batch, eval, background).", Optional.of("x-sluice-class"));
                return false;
            }
            trafficClass = c.get().outranks(key.maxClass()) ? key.maxClass() : c.get();
        }
        long deadlineMillis = key.deadline().map(Duration::toMillis).orElse(Long.MAX_VALUE);
        String ms = req.getHeader("x-sluice-deadline-ms");
        if (ms != null) {
            long v = parseLong(ms);
            if (v <= 0) {
                fail(400, "invalid_deadline", "x-sluice-deadline-ms: '" + ms + "' is not a positive number of "
                        + "milliseconds.", Optional.of("x-sluice-deadline-ms"));
                return false;
            }
            deadlineMillis = Math.min(deadlineMillis, v);
        }
        if (deadlineMillis != Long.MAX_VALUE) {
            deadlineNanos = core.clock.nanos() + deadlineMillis * 1_000_000L;
        }
        return true;
    }

    private void onDecision(Decision d) {
        switch (d) {
            case Decision.Admitted a -> admitted(a);
            case Decision.Rejected r -> {
                if (clientGone) {
                    finish();
                } else {
                    rejectLocally(r.rejection());
                }
            }
            case Decision.Queued q -> q.outcome().whenComplete((f, err) -> context.runOnContext(v -> {
                if (err != null) {
                    fail(500, "internal_error", "Admission failed unexpectedly.", Optional.empty());
                } else {
                    onDecision(f);
                }
            }));
        }
    }

    private void admitted(Decision.Admitted a) {
        reservation = a.reservation();
        core.ledger.recordReservationOpened();
        if (clientGone) {
            release();
            finish();
            return;
        }
        if (a.queuedNanos() > 0) {
            resp.putHeader("x-sluice-queued-ms", Long.toString(a.queuedNanos() / 1_000_000));
        }
        if (a.brownout()) {
            // The gateway's configuration does not tune modes, so the factor is the adaptive default (0.5).
            plan = plan.capOutput(route.operation(), ModeConfig.DEFAULT_BROWNOUT_MAX_TOKENS_FACTOR, estimate.outputTokens());
            resp.putHeader("x-sluice-brownout", "true");
        }
        state = State.UPSTREAM;
        call = new UpstreamCall(this);
        call.dispatch();
    }

    void rejectLocally(Rejection r) {
        core.ledger.recordLocalRejection();
        RejectionView v = new RejectionView(r.decision(), r.code(), r.message(), r.limiterName(), r.scopeName(),
                deployment.kind().wireName(), profile.id(), profile.model(), r.retryAfterMillis(), r.retryable(),
                key.tenant(), key.id(), trafficClass.wireName(), estimate.inputTokens(), estimate.outputTokens(), traceId);
        reject(v);
    }

    /** Answers a refusal with the normalised body and the retry headers, status and hints as {@link Refusal} decides. */
    void reject(RejectionView v) {
        Refusal refusal = Refusal.of(v);
        refusal.headers(resp.headers());
        answer(refusal.status(), "application/json", Buffer.buffer(ErrorBodies.bytes(ErrorBodies.rejection(family, v, refusal))));
    }

    private void onClientGone() {
        if (state == State.DONE || clientGone) {
            return;
        }
        clientGone = true;
        switch (state) {
            case READING -> finish();
            case UPSTREAM -> call.clientGone();
            default -> { } // the pending admission decision sees clientGone and ends the request
        }
    }

    // --- answers --------------------------------------------------------------------------------

    void fail(int status, String code, String message, Optional<String> param) {
        answer(status, "application/json", Buffer.buffer(ErrorBodies.bytes(ErrorBodies.local(family, status, code,
                message, param, traceId))));
    }

    private void answerJson(int status, ObjectNode body) {
        answer(status, "application/json", Buffer.buffer(ProxyJson.bytes(body)));
    }

    /** The one place a whole response is sent. */
    void answer(int status, String contentType, Buffer out) {
        if (state == State.DONE) {
            core.ledger.recordDuplicateAnswer();
            return;
        }
        boolean close = "close".equals(resp.headers().get("connection"));
        resp.setStatusCode(status);
        resp.putHeader(HeaderNames.CONTENT_TYPE, contentType);
        quotaHeaders();
        finish();
        if (close) {
            resp.end(out).onComplete(v -> req.connection().close());
        } else {
            resp.end(out);
        }
    }

    /** The caller's own remaining quota; catalog and count endpoints never read throttle state. */
    void quotaHeaders() {
        if (key != null && route != null && route.operation().metered()) {
            core.quota.write(resp.headers(), key);
        }
    }

    /** Marks the request answered (or abandoned by its client): counted exactly once. */
    void finish() {
        if (state != State.DONE) {
            state = State.DONE;
            core.ledger.recordAnswered();
        }
    }

    // --- the reservation ------------------------------------------------------------------------

    void settle(Usage usage) {
        if (reservation != null && !reservationEnded) {
            reservationEnded = true;
            Reservation r = reservation;
            endReservation(() -> r.settle(usage));
            core.ledger.recordReservationSettled();
        }
    }

    void release() {
        if (reservation != null && !reservationEnded) {
            reservationEnded = true;
            Reservation r = reservation;
            endReservation(r::release);
            core.ledger.recordReservationReleased();
        }
    }

    /** Runs a settlement in place, or on a worker when the store waits on the network. */
    private void endReservation(Runnable end) {
        if (core.storeBlocks) {
            context.executeBlocking(() -> {
                runQuietly(end);
                return null;
            }, false);
        } else {
            runQuietly(end);
        }
    }

    private static void runQuietly(Runnable end) {
        try {
            end.run();
        } catch (RuntimeException e) {
            // The store could not take it now; the lease expires and gives its capacity back.
        }
    }

    private static long parseLong(String s) {
        if (s == null) {
            return -1;
        }
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
