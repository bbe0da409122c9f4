package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.mock.MockClock;
import dev.sluice.mock.http.FaultDraw.Before;
import dev.sluice.mock.http.FaultDraw.During;
import dev.sluice.mock.http.Route.Endpoint;
import dev.sluice.mock.limits.Admission;
import dev.sluice.mock.limits.LimitSnapshot;
import dev.sluice.mock.limits.ProviderLimitModel;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.mock.limits.Ticket;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A loopback HTTP server that answers like one LLM provider: its endpoints, bodies, usage, streams,
 * rate-limit headers and 429s, enforcing {@link ProviderLimits} with a {@link ProviderLimitModel}.
 *
 * <p>Start one per flavour: {@code MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI))}
 * binds 127.0.0.1 on a free port. SDK base URLs: OpenAI {@code baseUrl() + "/v1"}; Azure endpoint
 * {@code baseUrl()}; Anthropic {@code baseUrl()}; Gemini {@code baseUrl()} (API version {@code v1beta}).
 *
 * <p>Request headers tests may send:
 * <ul>
 *   <li>{@value #HEADER_TENANT}: the tenant for statistics (else a hash of the API key, never the key)
 *   <li>{@value #HEADER_OUTPUT_TOKENS}: the output length, capped at the request's {@code max_tokens}
 *   <li>{@value #HEADER_CACHE_READ_TOKENS}: prompt tokens to report as read from the cache
 *   <li>{@value #HEADER_FAULT}: comma-separated faults to force: {@code reset}, {@code server_error},
 *       {@code overloaded}, {@code spike}, {@code reset_mid_stream}, {@code garbage}, {@code truncate},
 *       {@code stream_error}
 *   <li>{@value #HEADER_STATUS}: answer this status with the flavour's error body instead
 * </ul>
 *
 * <p>Control endpoints (no key needed): {@code GET|POST /_mock/limits}, {@code GET|POST /_mock/faults}
 * (partial JSON updates), {@code GET /_mock/stats}, {@code POST /_mock/reset}.
 */
public final class MockProviderServer {

    public static final String HEADER_TENANT = "x-mock-tenant";
    public static final String HEADER_OUTPUT_TOKENS = "x-mock-output-tokens";
    public static final String HEADER_CACHE_READ_TOKENS = "x-mock-cache-read-tokens";
    public static final String HEADER_FAULT = "x-mock-fault";
    public static final String HEADER_STATUS = "x-mock-status";

    private static final List<String> OPENAI_MODELS = List.of("gpt-4o-mini", "gpt-4o", "text-embedding-3-small");
    private static final List<String> GEMINI_MODELS = List.of("gemini-2.5-flash", "gemini-2.5-pro");

    private final Vertx vertx;
    private final MockConfig config;
    private final MockClock clock;
    private final Object lock = new Object();
    private final ProviderLimitModel model;
    private final ArrayDeque<Attempt> attempts = new ArrayDeque<>();
    private final Map<String, Long> faultCounts = new TreeMap<>();
    private volatile FaultConfig faults;
    private SplittableRandom faultRandom;
    private SplittableRandom outputRandom;
    private long totalRequests;
    private long requestSerial;
    private HttpServer server;

    private MockProviderServer(Vertx vertx, MockConfig config, MockClock clock) {
        this.vertx = vertx;
        this.config = config;
        this.clock = clock;
        this.model = new ProviderLimitModel(config.limits(), dayOriginNanos(clock, config));
        this.faults = config.faults();
        seedRandoms();
    }

    /** Starts a server on the machine's clock. */
    public static Future<MockProviderServer> start(Vertx vertx, MockConfig config) {
        return start(vertx, config, MockClock.system());
    }

    /** Starts a server whose limits and header dates follow {@code clock} (delays stay real). */
    public static Future<MockProviderServer> start(Vertx vertx, MockConfig config, MockClock clock) {
        Objects.requireNonNull(vertx, "vertx");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        MockProviderServer mock = new MockProviderServer(vertx, config, clock);
        // Faults close connections with a plain close, not a TCP reset: a reset can make the client
        // drop bytes it has already received, and "half a stream, then gone" must be reproducible.
        HttpServerOptions options = new HttpServerOptions().setHost(config.host()).setPort(config.port())
                .setHttp2ClearTextEnabled(false);
        return vertx.createHttpServer(options).requestHandler(mock::handle).listen().map(s -> {
            mock.server = s;
            return mock;
        });
    }

    /** The start of the current day in {@link MockConfig#dailyResetZone()}, on the clock's nanos. */
    private static long dayOriginNanos(MockClock clock, MockConfig config) {
        long nowMillis = clock.epochMillis();
        long midnight = Instant.ofEpochMilli(nowMillis).atZone(config.dailyResetZone()).toLocalDate()
                .atStartOfDay(config.dailyResetZone()).toInstant().toEpochMilli();
        return clock.nanos() - (nowMillis - midnight) * 1_000_000L;
    }

    private void seedRandoms() {
        faultRandom = new SplittableRandom(config.seed());
        outputRandom = new SplittableRandom(config.seed() ^ 0x5DEECE66DL);
    }

    /** The bound port. */
    public int port() {
        return server.actualPort();
    }

    /** {@code http://127.0.0.1:<port>}, without a path. */
    public String baseUrl() {
        return "http://" + config.host() + ":" + port();
    }

    public Flavour flavour() {
        return config.flavour();
    }

    /** The configuration it was started with (limits and faults may have changed since). */
    public MockConfig config() {
        return config;
    }

    public ProviderLimits limits() {
        synchronized (lock) {
            return model.limits();
        }
    }

    /** Changes the limits at run time; usage so far is kept. */
    public void setLimits(ProviderLimits limits) {
        synchronized (lock) {
            model.setLimits(limits, clock.nanos());
        }
    }

    public FaultConfig faults() {
        return faults;
    }

    public void setFaults(FaultConfig faults) {
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /** What the server has seen since it started or was reset. */
    public MockStats stats() {
        synchronized (lock) {
            return new MockStats(model.tenantStats(), List.copyOf(attempts), faultCounts, totalRequests, model.inFlight());
        }
    }

    /** Forgets usage and statistics and restores the configured limits, faults and seeds. */
    public void reset() {
        synchronized (lock) {
            model.setLimits(config.limits(), clock.nanos());
            model.reset();
            attempts.clear();
            faultCounts.clear();
            totalRequests = 0;
            seedRandoms();
        }
        faults = config.faults();
    }

    /** Stops listening and closes open connections. */
    public Future<Void> close() {
        return server == null ? Future.succeededFuture() : server.close();
    }

    // ---- dispatch ---------------------------------------------------------------------------------

    private void handle(HttpServerRequest req) {
        req.body().onSuccess(body -> {
            if (req.path().startsWith("/_mock/")) {
                ControlEndpoints.handle(this, req, body);
            } else {
                provider(req, body);
            }
        });
    }

    /** One attempt being answered; records itself once in the statistics. */
    private final class Exchange {
        final HttpServerRequest req;
        final long seq;
        final String tenant;
        final String requestId;
        boolean recorded;

        Exchange(HttpServerRequest req, long seq, String tenant) {
            this.req = req;
            this.seq = seq;
            this.tenant = tenant;
            this.requestId = "req_" + HexFormat.of().toHexDigits(config.seed()) + HexFormat.of().toHexDigits(seq);
        }

        void record(int status, String outcome) {
            if (recorded) {
                return;
            }
            recorded = true;
            MultiMap h = req.headers();
            Attempt a = new Attempt(seq, tenant, req.method().name(), req.path(), status, outcome,
                    Optional.ofNullable(h.get("x-stainless-retry-count")), Optional.ofNullable(h.get("idempotency-key")));
            synchronized (lock) {
                attempts.addLast(a);
                while (attempts.size() > MockStats.MAX_ATTEMPTS) {
                    attempts.removeFirst();
                }
            }
        }
    }

    private void provider(HttpServerRequest req, Buffer rawBody) {
        String key = Identity.apiKey(req);
        Exchange ex;
        synchronized (lock) {
            totalRequests++;
            ex = new Exchange(req, ++requestSerial, Identity.tenant(req, key));
        }
        Optional<Route> route = Route.match(config.flavour(), req.method(), req.path());
        String apiVersion = Optional.ofNullable(req.getParam("api-version")).orElse("2024-10-21");
        ErrorWire errors = new ErrorWire(config.flavour(), route.flatMap(Route::pathModel).orElse("gpt-4o-mini"),
                ex.requestId, route.map(Route::endpoint).orElse(Endpoint.CHAT), apiVersion);
        if (route.isEmpty()) {
            sendError(ex, errors.notFound(req.path()), Optional.empty());
            return;
        }
        if (!config.requiredKeys().isEmpty() && (key == null || !config.requiredKeys().contains(key))) {
            sendError(ex, errors.unauthorized(), Optional.empty());
            return;
        }
        if (route.get().needsApiVersion() && req.getParam("api-version") == null) {
            sendError(ex, errors.badRequest("Missing required query parameter: api-version"), Optional.empty());
            return;
        }
        Call call;
        FaultDraw draw;
        try {
            JsonNode body = rawBody.length() == 0 ? Wire.obj() : Wire.MAPPER.readTree(rawBody.getBytes());
            if (!body.isObject()) {
                throw new CallReader.BadRequest("The request body must be a JSON object.");
            }
            call = CallReader.read(config.flavour(), route.get(), body, req.params(), req.headers(), config, ex.tenant,
                    ex.requestId, clock.epochMillis() / 1000);
            String forced = req.getHeader(HEADER_FAULT);
            synchronized (lock) {
                draw = forced != null ? FaultDraw.forced(forced) : FaultDraw.draw(faults, faultRandom);
            }
        } catch (CallReader.BadRequest e) {
            sendError(ex, errors.badRequest(e.getMessage()), Optional.empty());
            return;
        } catch (java.io.IOException e) {
            sendError(ex, errors.badRequest("The request body is not valid JSON."), Optional.empty());
            return;
        }
        errors = new ErrorWire(config.flavour(), call.model(), ex.requestId, route.get().endpoint(), apiVersion);
        if (!route.get().endpoint().admitted()) {
            sendJson(ex, unadmitted(call), Optional.empty());
            return;
        }
        String status = req.getHeader(HEADER_STATUS);
        if (status != null) {
            int code = parseStatus(status);
            sendError(ex, errors.status(code, "status:" + code), Optional.empty());
            return;
        }
        admitAndAnswer(ex, call, draw, errors);
    }

    private static int parseStatus(String value) {
        try {
            int code = Integer.parseInt(value.trim());
            if (code >= 400 && code <= 599) {
                return code;
            }
        } catch (NumberFormatException e) {
            // fall through to the default
        }
        return 500;
    }

    private JsonNode unadmitted(Call call) {
        return switch (call.route().endpoint()) {
            case MODELS -> config.flavour() == Flavour.GEMINI ? GeminiWire.models(GEMINI_MODELS)
                    : OpenAiWire.models(OPENAI_MODELS);
            case COUNT_TOKENS -> AnthropicWire.countTokens(call.promptTokens());
            case GEMINI_COUNT_TOKENS -> GeminiWire.countTokens(call.promptTokens());
            default -> throw new IllegalStateException("admitted endpoint: " + call.route().endpoint());
        };
    }

    /** Faults before admission, admission, then the answer or the error. */
    private void admitAndAnswer(Exchange ex, Call call, FaultDraw draw, ErrorWire errors) {
        if (draw.before() != Before.NONE) {
            countFault(draw.before().label);
            switch (draw.before()) {
                case RESET -> {
                    ex.record(0, "fault:reset");
                    ex.req.connection().close();
                }
                case SERVER_ERROR -> sendError(ex, errors.serverError("fault:server_error"), Optional.empty());
                default -> sendError(ex, errors.overloaded("fault:overloaded"), Optional.empty());
            }
            return;
        }
        Admission admission;
        LimitSnapshot snapshot;
        long generated;
        synchronized (lock) {
            long now = clock.nanos();
            if (faults.quotaExhausted()) {
                snapshot = model.snapshot(now);
                admission = null;
            } else {
                admission = model.tryAdmit(call.tenant(), call.uncachedPromptTokens(), call.cacheReadTokens(),
                        call.reserve(), now);
                snapshot = model.snapshot(now);
            }
            generated = sampleOutput();
        }
        if (admission == null) {
            sendError(ex, errors.quotaExhausted(), Optional.of(snapshot));
            return;
        }
        switch (admission) {
            case Admission.Limited l -> {
                sendError(ex, errors.limited(l, snapshot, config.rateLimitBody()), Optional.of(snapshot));
            }
            case Admission.TooLarge t -> {
                sendError(ex, errors.tooLarge(t, snapshot, config.rateLimitBody()), Optional.of(snapshot));
            }
            case Admission.Accepted a -> {
                Generation g = generation(ex, call, generated);
                if (draw.spike()) {
                    countFault("spike");
                }
                if (draw.during() != During.NONE) {
                    countFault(draw.during().label);
                }
                long delay = config.latency().timeToFirstToken().toMillis()
                        + (draw.spike() ? faults.spikeDelay().toMillis() : 0);
                Runnable answer = () -> answer(ex, call, g, a.ticket(), snapshot, draw.during(), errors);
                if (delay > 0) {
                    vertx.setTimer(delay, id -> answer.run());
                } else {
                    answer.run();
                }
            }
        }
    }

    private long sampleOutput() {
        long spread = config.outputSpread();
        return config.meanOutputTokens() + (spread == 0 ? 0 : outputRandom.nextLong(-spread, spread + 1));
    }

    private Generation generation(Exchange ex, Call call, long sampled) {
        if (call.route().endpoint().embeds()) {
            return new Generation(0, false, ex.seq);
        }
        java.util.Optional<ToolUse> tool = ToolUse.of(call.route().endpoint(), call.body());
        if (tool.isPresent()) {
            return Generation.calling(tool.get(), config.seed() ^ ex.seq);
        }
        long wanted = CallReader.headerLong(ex.req.headers(), HEADER_OUTPUT_TOKENS, sampled);
        long out = Math.min(wanted, call.maxTokens());
        return new Generation(out, wanted >= call.maxTokens(), config.seed() ^ ex.seq);
    }

    private void complete(Ticket ticket, long outputTokens) {
        synchronized (lock) {
            model.complete(ticket, outputTokens, clock.nanos());
        }
    }

    private void countFault(String label) {
        synchronized (lock) {
            faultCounts.merge(label, 1L, Long::sum);
        }
    }

    // ---- answers ----------------------------------------------------------------------------------

    private void answer(Exchange ex, Call call, Generation g, Ticket ticket, LimitSnapshot snapshot, During fault,
            ErrorWire errors) {
        HttpServerResponse resp = ex.req.response();
        if (resp.closed()) {
            ex.record(0, "client_closed");
            complete(ticket, g.outputTokens());
            return;
        }
        if (call.stream()) {
            stream(ex, call, g, ticket, snapshot, fault, errors);
            return;
        }
        long work = config.latency().millisFor(g.outputTokens());
        Runnable finish = () -> whole(ex, call, g, ticket, snapshot, fault, errors);
        if (work > 0) {
            vertx.setTimer(work, id -> finish.run());
        } else {
            finish.run();
        }
    }

    /** A non-streamed answer, or its fault. */
    private void whole(Exchange ex, Call call, Generation g, Ticket ticket, LimitSnapshot snapshot, During fault,
            ErrorWire errors) {
        HttpServerResponse resp = ex.req.response();
        if (resp.closed()) {
            ex.record(0, "client_closed");
            complete(ticket, g.outputTokens());
            return;
        }
        switch (fault) {
            case RESET_MID_STREAM -> {
                ex.record(0, "fault:reset_mid_stream");
                complete(ticket, g.outputTokens());
                ex.req.connection().close();
                return;
            }
            case STREAM_ERROR -> {
                complete(ticket, 0);
                sendError(ex, errors.serverError("fault:stream_error"), Optional.empty());
                return;
            }
            default -> { }
        }
        successHeaders(ex, snapshot);
        resp.putHeader("content-type", "application/json");
        Buffer body = Wire.buffer(successBody(call, g));
        switch (fault) {
            case GARBAGE -> {
                ex.record(200, "fault:garbage");
                resp.end(garbage());
                complete(ticket, 0);
            }
            case TRUNCATE -> {
                ex.record(200, "fault:truncate");
                resp.setChunked(true);
                resp.end(body.getBuffer(0, body.length() / 2));
                complete(ticket, g.outputTokens());
            }
            default -> {
                ex.record(200, "ok");
                resp.end(body);
                complete(ticket, g.outputTokens());
            }
        }
    }

    private static Buffer garbage() {
        return Buffer.buffer("<html><head><title>502 Bad Gateway</title></head><body>upstream hiccup</body></html>");
    }

    private JsonNode successBody(Call call, Generation g) {
        return switch (call.route().endpoint()) {
            case CHAT, GEMINI_COMPAT_CHAT -> OpenAiWire.chat(call, g);
            case COMPLETIONS -> OpenAiWire.completion(call, g);
            case EMBEDDINGS -> OpenAiWire.embeddings(call);
            case EMBED_CONTENT -> GeminiWire.embedContent(call);
            case BATCH_EMBED_CONTENTS -> GeminiWire.batchEmbedContents(call);
            case RESPONSES -> OpenAiWire.responses(call, g);
            case MESSAGES -> AnthropicWire.messages(call, g);
            case GENERATE, STREAM_GENERATE -> GeminiWire.generate(call, g);
            default -> throw new IllegalStateException("not an answering endpoint: " + call.route().endpoint());
        };
    }

    private StreamPlan plan(Call call, Generation g) {
        int perChunk = config.latency().tokensPerChunk();
        return switch (call.route().endpoint()) {
            case CHAT, GEMINI_COMPAT_CHAT -> OpenAiWire.chatStream(call, g, perChunk);
            case COMPLETIONS -> OpenAiWire.completionStream(call, g, perChunk);
            case RESPONSES -> OpenAiWire.responsesStream(call, g, perChunk);
            case MESSAGES -> AnthropicWire.stream(call, g, perChunk);
            case GENERATE, STREAM_GENERATE -> GeminiWire.stream(call, g, perChunk);
            default -> throw new IllegalStateException("not a streaming endpoint: " + call.route().endpoint());
        };
    }

    private void stream(Exchange ex, Call call, Generation g, Ticket ticket, LimitSnapshot snapshot, During fault,
            ErrorWire errors) {
        if (call.route().endpoint().embeds()) {
            whole(ex, call, g, ticket, snapshot, fault, errors);
            return;
        }
        StreamPlan plan = plan(call, g);
        HttpServerResponse resp = ex.req.response();
        successHeaders(ex, snapshot);
        resp.putHeader("content-type", plan.contentType());
        if (plan.contentType().equals(StreamPlan.SSE)) {
            resp.putHeader("cache-control", "no-cache");
        }
        resp.setChunked(true);
        List<StreamPlan.Chunk> chunks = plan.chunks();
        List<StreamPlan.Chunk> cut = chunks.subList(0, plan.cutAt());
        ChunkPump.Ending ending = ChunkPump.Ending.END;
        switch (fault) {
            case RESET_MID_STREAM -> {
                chunks = cut;
                ending = ChunkPump.Ending.RESET;
            }
            case TRUNCATE -> chunks = cut;
            case STREAM_ERROR -> {
                chunks = cut;
                ending = ChunkPump.Ending.ERROR_EVENT;
            }
            case GARBAGE -> {
                chunks = new java.util.ArrayList<>(cut);
                chunks.add(StreamPlan.Chunk.of(Buffer.buffer("data: {\"choices\": [{\"delta\": <html>oops\n\n")));
            }
            case NONE -> { }
        }
        ex.record(200, fault == During.NONE ? "ok" : "fault:" + fault.label);
        ChunkPump.start(vertx, ex.req, chunks, ending, errors.streamError(), config.latency(),
                tokens -> complete(ticket, fault == During.GARBAGE ? 0 : tokens));
    }

    // ---- headers and errors -----------------------------------------------------------------------

    private void successHeaders(Exchange ex, LimitSnapshot snapshot) {
        MultiMap h = ex.req.response().headers();
        ProviderWire.idHeaders(h, config.flavour(), ex.requestId);
        ProviderWire.limitHeaders(h, config, limits(), snapshot, clock.epochMillis());
    }

    private void sendError(Exchange ex, ErrorReply reply, Optional<LimitSnapshot> snapshot) {
        HttpServerResponse resp = ex.req.response();
        ex.record(reply.status(), reply.outcome());
        if (resp.closed()) {
            return;
        }
        ProviderWire.idHeaders(resp.headers(), config.flavour(), ex.requestId);
        ProviderWire.errorHeaders(resp.headers(), config, faults.shouldRetry(), limits(), reply, snapshot,
                clock.epochMillis());
        resp.setStatusCode(reply.status()).end(reply.body());
    }

    private void sendJson(Exchange ex, JsonNode body, Optional<LimitSnapshot> snapshot) {
        HttpServerResponse resp = ex.req.response();
        ex.record(200, "ok");
        ProviderWire.idHeaders(resp.headers(), config.flavour(), ex.requestId);
        snapshot.ifPresent(s -> ProviderWire.limitHeaders(resp.headers(), config, limits(), s, clock.epochMillis()));
        resp.putHeader("content-type", "application/json").end(Wire.buffer(body));
    }

}
