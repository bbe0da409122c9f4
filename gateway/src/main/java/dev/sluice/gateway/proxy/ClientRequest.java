package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.auth.Credentials;
import dev.sluice.gateway.http.ApiFamily;
import dev.sluice.gateway.http.ErrorBodies;
import dev.sluice.gateway.http.HeaderNames;
import dev.sluice.gateway.http.MalformedRequest;
import dev.sluice.gateway.http.Operation;
import dev.sluice.gateway.http.Refusal;
import dev.sluice.gateway.http.RejectionView;
import dev.sluice.gateway.http.Route;
import dev.sluice.gateway.http.TraceIds;
import dev.sluice.gateway.upstream.UpstreamClient;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.RequestLifecycle;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * One client request on its event loop, before and around whatever serves it: reads the head,
 * matches the endpoint, authenticates, reads the body within its limits, and owns the one answer
 * ({@link #answer}). Health and readiness are answered by {@link Probes}; the catalogue by
 * {@link Catalogue}; token counts by {@link TokenCount}; model calls by an {@link Exchange}. Its
 * {@link RequestLifecycle} hears of the answer and of a client that leaves.
 */
final class ClientRequest {

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
    State state = State.READING;
    RequestLifecycle lifecycle;
    /** The model call in progress, once the body is read. */
    private Exchange exchange;
    private Buffer body;
    private long refusedBytes;
    private boolean internalErrorLogged;

    private static final System.Logger LOG = System.getLogger("dev.sluice.gateway");

    ClientRequest(GatewayCore core, HttpServerRequest req, UpstreamClient client) {
        this.core = core;
        this.req = req;
        this.resp = req.response();
        this.client = client;
        this.context = Vertx.currentContext();
        this.traceId = TraceIds.fromTraceparent(req.getHeader("traceparent"));
    }

    /**
     * Serves the request.
     *
     * @param refused why the connection's own state refuses it before it is read (over a cap), or empty
     */
    void start(Optional<MalformedRequest> refused) {
        resp.putHeader(HeaderNames.TRACE_ID, traceId);
        Optional<MalformedRequest> malformed = refused.or(() -> MalformedRequest.of(req.decoderResult()))
                .or(() -> MalformedRequest.ofHead(req.version(), req.headers(), req.uri()));
        // Only GET paths are shared between families; a POST's path alone names its route.
        Optional<Route> matched = malformed.isPresent() ? Optional.empty() : Route.match(req.method(), req.path(),
                req.method() == io.vertx.core.http.HttpMethod.GET ? dialect() : ApiFamily.OPENAI);
        if (matched.isPresent() && matched.get().operation().open()) {
            // Probes are not requests of anybody's: answered in place, never recorded.
            Probes.answer(core, resp, matched.get().operation());
            return;
        }
        lifecycle = core.runtime.arrive(traceId, work -> context.runOnContext(v -> work.run()));
        String parent = TraceIds.parentSpanId(req.getHeader("traceparent"));
        if (parent != null) {
            lifecycle.parentSpan(parent);
        }
        resp.closeHandler(v -> onClientGone());
        req.exceptionHandler(e -> onClientGone());
        if (malformed.isPresent()) {
            // Where the head could not be read or its framing is ambiguous, neither can what follows it be
            // trusted: answer and close. The path, when the decoder got that far, still tells whose error shape
            // to use.
            family = dialect();
            refuse(malformed.get());
            return;
        }
        if (matched.isEmpty()) {
            family = dialect();
            fail(404, "unknown_route", "Sluice serves no " + req.method() + " " + req.path() + ".", Optional.empty());
            return;
        }
        route = matched.get();
        Operation op = route.operation();
        family = op.family();
        lifecycle.operation(op.eventName());
        if (route.azure()) {
            Optional<String> badVersion = Route.azureApiVersionProblem(req.query());
            if (badVersion.isPresent()) {
                fail(400, "invalid_api_version", badVersion.get(), Optional.of("api-version"));
                return;
            }
        }
        if (Credentials.conflicting(req)) {
            fail(400, "conflicting_credentials", "The request carries different API keys in two places (say "
                    + "'Authorization' and 'api-key'); send one.", Optional.empty());
            return;
        }
        key = Credentials.presented(req).flatMap(k -> core.keys.resolve(k, core.clock.epochMillis())).orElse(null);
        if (key == null) {
            fail(401, "invalid_api_key", "Missing or unknown API key. Send it as 'Authorization: Bearer <key>', "
                    + "'x-api-key', 'api-key' or 'x-goog-api-key'.", Optional.empty());
            return;
        }
        lifecycle.identified(new Caller(key.org(), key.tenant(), key.team(), key.id()));
        if (op.catalogue()) {
            Catalogue.answer(this);
            return;
        }
        readBody(raw -> {
            if (op == Operation.ANTHROPIC_COUNT_TOKENS || op == Operation.GEMINI_COUNT_TOKENS) {
                TokenCount.answer(this, raw);
            } else {
                exchange = new Exchange(this);
                exchange.onBody(raw);
            }
        });
    }

    /** Reads the whole JSON body within the configured size, then hands it to {@code then}. */
    private void readBody(Consumer<byte[]> then) {
        String type = req.getHeader("content-type");
        if (type != null && !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            fail(415, "unsupported_media_type", "Request bodies must be application/json, not " + type + ".",
                    Optional.empty());
            return;
        }
        long max = core.config().server().maxBodyBytes();
        long declared = parseLong(req.getHeader("content-length"));
        body = Buffer.buffer(declared > 0 && declared <= max ? (int) declared : 1024);
        // A body that trickles in (or never comes) must not hold the connection and its buffer for ever.
        long timer = core.vertx.setTimer(core.config().server().bodyTimeout().toMillis(), id -> bodyTimedOut());
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
            core.vertx.cancelTimer(timer);
            if (state == State.READING && req.headers().contains(MalformedRequest.BAD_CHUNK_MARK)) {
                body = null;
                refuse(MalformedRequest.BAD_CHUNK);
            } else if (state == State.READING) {
                state = State.ADMITTING;
                byte[] raw = body.getBytes();
                body = null;
                try {
                    then.accept(raw);
                } catch (RuntimeException e) {
                    internalError(e);
                }
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

    private void bodyTimedOut() {
        if (state == State.READING) {
            body = null;
            resp.putHeader("connection", "close");
            fail(408, "request_timeout", "The request body did not arrive within " + core.config().server().bodyTimeout()
                    .toMillis() + " ms of its head (server.body_timeout).", Optional.empty());
        }
    }

    /**
     * The catch-all: an exception no rule expected, thrown while serving this request (its head,
     * body, quote, admission or the provider's answer). Logged once, with the trace id, the
     * operation and where it was thrown, never its message (which may quote the request); an open
     * attempt ends as if the client had gone (charged what was produced); the client gets one 500
     * in its route's shape and the connection is closed, or, when an answer has already started,
     * the connection is closed and the request ends as a client gone.
     */
    void internalError(Throwable e) {
        if (!internalErrorLogged) {
            internalErrorLogged = true;
            StackTraceElement at = e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null;
            LOG.log(System.Logger.Level.ERROR, "request " + traceId + " (" + (route == null ? "unrouted"
                    : route.operation().eventName()) + ") failed inside Sluice: " + e.getClass().getName()
                    + (at == null ? "" : " at " + at));
        }
        if (state == State.DONE) {
            return;
        }
        if (lifecycle == null) {
            lifecycle = core.runtime.arrive(traceId, work -> context.runOnContext(v -> work.run()));
        }
        if (resp.headWritten()) {
            req.connection().close(); // the close handler ends the attempt and the request
            return;
        }
        if (state == State.UPSTREAM && exchange != null) {
            exchange.clientGone();
        }
        resp.headers().set("connection", "close");
        fail(500, "internal_error", "Sluice failed while serving this request; the failure is logged under trace id "
                + traceId + ".", Optional.empty());
    }

    /** Answers {@code why} in the request's family's shape, closing the connection where it says so. */
    private void refuse(MalformedRequest why) {
        if (why.close()) {
            resp.putHeader("connection", "close");
        }
        fail(why.status(), why.code(), why.reason(), Optional.empty());
    }

    private void onClientGone() {
        if (state == State.DONE) {
            return;
        }
        State was = state;
        state = State.DONE;
        if (was == State.UPSTREAM && exchange != null) {
            exchange.clientGone();
        }
        lifecycle.clientGone();
    }

    // --- answers --------------------------------------------------------------------------------

    void fail(int status, String code, String message, Optional<String> param) {
        send(status, "application/json", Buffer.buffer(ErrorBodies.bytes(ErrorBodies.local(family, status, code,
                message, param, traceId))), Optional.of(code), OptionalLong.empty());
    }

    /** Answers a refusal with the normalised body; status and retry headers as {@link Refusal} decides. */
    void reject(RejectionView v) {
        Refusal refusal = Refusal.of(v);
        refusal.headers(resp.headers());
        v.explanation().ifPresent(x -> resp.headers().set(HeaderNames.EXPLANATION, HeaderNames.explanation(x, v.mode())));
        send(refusal.status(), "application/json", Buffer.buffer(ErrorBodies.bytes(ErrorBodies.rejection(family, v, refusal))),
                Optional.of(v.code()), refusal.retry() ? refusal.retryAfterMillis() : OptionalLong.empty());
    }

    /** The family the request speaks by its headers and path ({@link Route#dialect}). */
    private ApiFamily dialect() {
        return Route.dialect(req.path() == null ? "" : req.path(), req.headers(), req.query());
    }

    void answerJson(int status, ObjectNode json) {
        answer(status, "application/json", Buffer.buffer(ProxyJson.bytes(json)));
    }

    /** A whole successful (or relayed) answer. */
    void answer(int status, String contentType, Buffer out) {
        send(status, contentType, out, Optional.empty(), OptionalLong.empty());
    }

    /**
     * Runs {@code written} once the whole answer sent has left for the client's socket (or failed
     * to): until then its bytes are held in the connection's queue. At once when none was sent.
     */
    void whenWritten(Runnable written) {
        if (ended == null) {
            written.run();
        } else {
            ended.onComplete(v -> written.run());
        }
    }

    /** The end of the whole answer sent, once it is sent: done when its bytes have been written. */
    private io.vertx.core.Future<Void> ended;

    /** The one place a whole response is sent; the lifecycle hears of it once the bytes are written. */
    private void send(int status, String contentType, Buffer out, Optional<String> code, OptionalLong retryAfter) {
        if (state == State.DONE) {
            lifecycle.answered(status, code, retryAfter); // counted as a duplicate
            return;
        }
        state = State.DONE;
        boolean close = "close".equals(resp.headers().get("connection"));
        resp.setStatusCode(status);
        resp.putHeader(HeaderNames.CONTENT_TYPE, contentType);
        quotaHeaders();
        ended = resp.end(out);
        if (close) {
            ended.onComplete(v -> req.connection().close());
        }
        lifecycle.answered(status, code, retryAfter);
    }

    /** A stream's answer has started with {@code status}; it ends with {@link #endStream}. */
    void streamStarted(int status) {
        lifecycle.responseStarted(status);
    }

    /**
     * Ends a relayed stream, sending {@code last} with the final chunk (an empty buffer is never
     * written on its own). Marked done before the write, as a whole answer is:
     * ending the response to a client that has just gone runs the close handler at once, and that
     * must not be taken for a client leaving mid-answer (the attempt would end twice).
     */
    void endStream(Buffer last) {
        if (state == State.DONE) {
            return;
        }
        state = State.DONE;
        if (last.length() > 0) {
            resp.end(last);
        } else {
            resp.end();
        }
        lifecycle.answered(resp.getStatusCode(), Optional.empty(), OptionalLong.empty());
    }

    /** The caller's own remaining quota; catalog and count endpoints never read throttle state. */
    void quotaHeaders() {
        if (key != null && route != null && route.operation().metered()) {
            core.quota.write(resp.headers(), key);
        }
    }

    static long parseLong(String s) {
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
