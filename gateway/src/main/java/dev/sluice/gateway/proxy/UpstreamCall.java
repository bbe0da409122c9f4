package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.http.Operation;
import dev.sluice.gateway.http.RejectionView;
import dev.sluice.gateway.http.TraceIds;
import dev.sluice.gateway.translate.AnthropicResponses;
import dev.sluice.gateway.translate.ChatStreamConverter;
import dev.sluice.gateway.translate.ChatStreams;
import dev.sluice.gateway.translate.CompletionMeta;
import dev.sluice.gateway.translate.GeminiResponses;
import dev.sluice.runtime.request.ObservedUsage;
import dev.sluice.gateway.translate.ProviderErrors;
import dev.sluice.gateway.translate.StreamUsageTracker;
import dev.sluice.gateway.translate.UpstreamFormatException;
import dev.sluice.gateway.translate.UsageExtractor;
import dev.sluice.gateway.upstream.ResponseListener;
import dev.sluice.gateway.upstream.UpstreamCallHandle;
import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.Usage;
import dev.sluice.signal.LimitKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * The upstream half of an {@link Exchange}: sends the planned request with the deployment's
 * credentials, relays the answer (streams with back-pressure), reads usage, settles, and feeds
 * every answer to adaptive control. Retries a provider 429 itself only within the request's
 * deadline, its class's wait budget and the deployment's retry budget.
 */
final class UpstreamCall {

    /** The most of a JSON-array stream kept to read its usage at the end; beyond it the estimate stands. */
    static final int MAX_KEPT_STREAM_BYTES = 8 * 1024 * 1024;

    /** When a 429 gives no hint, a gateway retry waits this long. */
    static final long DEFAULT_RETRY_MILLIS = 250;

    /** No events; shared, so it is never written or appended to. */
    private static final Buffer EMPTY = Buffer.buffer(0);

    /** Response headers of the provider passed to the client; its rate-limit headers describe a shared quota and are not. */
    private static final List<String> PASSED_HEADERS = List.of("x-request-id", "request-id", "openai-processing-ms");

    private final Exchange x;
    private final GatewayCore core;
    private final GatewayCore.Upstream upstream;
    /** The attempt in flight; null before the first. */
    private UpstreamCallHandle call;
    private long retryTimer = -1;
    private long stallTimer = -1;
    private int attempts;
    private long sentAtNanos;
    private final byte[] body;
    private StreamUsageTracker tracker;
    /** Gemini streams without {@code alt=sse} are one JSON array: kept (bounded) to read its last usage. */
    private Buffer jsonArrayStream;
    private ChatStreamConverter converter;
    /** Stream output of the current upstream read, not yet written; see {@link #hold}. */
    private Buffer held;
    /** Whether {@link #held} is a buffer of ours (appendable) rather than one handed to us. */
    private boolean heldOwned;

    UpstreamCall(Exchange x) {
        this.x = x;
        this.core = x.core;
        this.upstream = core.upstream(x.deployment.id());
        this.body = x.plan.bytes();
    }

    void dispatch() {
        retryTimer = -1;
        sentAtNanos = core.clock.nanos();
        if (attempts++ == 0) {
            upstream.retries().firstAttempt();
        }
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, x.plan.pathAndQuery(),
                Unpooled.wrappedBuffer(body));
        HttpHeaders h = req.headers();
        h.set("content-type", "application/json");
        h.set("accept", x.plan.streaming() ? "text/event-stream" : "application/json");
        h.set("accept-encoding", "identity");
        h.set("traceparent", TraceIds.upstreamTraceparent(x.traceId));
        h.setInt("content-length", body.length);
        UpstreamPlan.credentials(h, x.deployment, x.req.headers());
        call = x.client.send(upstream.origin(), req, new Answer());
    }

    /** The client went away: stop the upstream call and settle with what was produced. */
    void clientGone() {
        if (retryTimer >= 0) {
            core.vertx.cancelTimer(retryTimer);
            x.settle(new Usage(0, 0));
        } else if (tracker != null) {
            settleStream();
        } else if (call == null || !call.sent()) {
            x.release(); // still connecting: nothing reached the provider
        } else {
            x.settle(new Usage(x.estimate.inputTokens(), 0));
        }
        x.finish();
        if (call != null) {
            call.cancel();
        }
    }

    private void onFailure(Throwable t) {
        boolean timeout = isTimeout(t);
        core.feedback.onResponse(x.deployment.id(), timeout ? SignalNormaliser.timeout() : SignalNormaliser.connectionFailed(),
                core.clock.nanos() - sentAtNanos);
        if (!call.sent() || t instanceof ConnectException) {
            x.release(); // it never reached the provider
        } else {
            x.settle(new Usage(x.estimate.inputTokens(), 0));
        }
        if (timeout) {
            x.fail(504, "upstream_timeout", "The provider did not answer within "
                    + core.config.server().upstreamTimeout().toMillis() + " ms.", Optional.empty());
        } else {
            x.fail(502, "upstream_unavailable", "The provider could not be reached or broke the connection.",
                    Optional.empty());
        }
    }

    static boolean isTimeout(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String msg = String.valueOf(c.getMessage()).toLowerCase(java.util.Locale.ROOT);
            if (c instanceof TimeoutException || c.getClass().getSimpleName().contains("Timeout")
                    || msg.contains("timeout period") || msg.contains("timed out")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The provider's answer to one attempt. An error status or a whole answer is gathered and
     * handled at its end; a stream is relayed as it comes.
     */
    private final class Answer implements ResponseListener {
        private int status;
        private HttpHeaders headers;
        private long headNanos;
        private boolean relaying;
        /** The body of a whole answer or an error, as it arrives. */
        private Buffer gathered;
        private boolean gatheredOwned;

        @Override
        public void onHead(int status, HttpHeaders headers) {
            if (x.state == Exchange.State.DONE) {
                call.cancel();
                return;
            }
            this.status = status;
            this.headers = headers;
            this.headNanos = core.clock.nanos();
            if (status < 300 && x.plan.streaming()) {
                relaying = true;
                signal(headers, status, "");
                relay(headers, status);
            }
        }

        @Override
        public void onContent(Buffer chunk) {
            if (x.state == Exchange.State.DONE) {
                return;
            }
            if (relaying) {
                relayed(chunk);
            } else if (gathered == null) {
                gathered = chunk;
            } else {
                if (!gatheredOwned) {
                    gathered = Buffer.buffer(gathered.length() + chunk.length() + 256).appendBuffer(gathered);
                    gatheredOwned = true;
                }
                gathered.appendBuffer(chunk);
            }
        }

        @Override
        public void onEnd() {
            if (relaying) {
                relayEnded();
            } else if (status >= 300) {
                if (x.state != Exchange.State.DONE) {
                    onError(headers, status, gatheredBytes());
                }
            } else if (x.state == Exchange.State.DONE) {
                signal(headers, status, "", headNanos);
            } else {
                // A whole answer's signal is taken after the client has it: the adaptive controller can wait,
                // the client should not. Its latency is still the provider's, up to the response head.
                onWholeBody(headers, status, gatheredBytes());
                signal(headers, status, "", headNanos);
            }
        }

        private byte[] gatheredBytes() {
            return gathered == null ? new byte[0] : gathered.getBytes();
        }

        @Override
        public void onFailure(Throwable cause) {
            if (relaying) {
                relayBroken(cause);
                return;
            }
            if (headers != null && status < 300) {
                signal(headers, status, "", headNanos);
            }
            if (x.state != Exchange.State.DONE) {
                UpstreamCall.this.onFailure(cause);
            }
        }
    }

    private ProviderSignal signal(HttpHeaders headers, int status, String body) {
        return signal(headers, status, body, core.clock.nanos());
    }

    /** Normalises the response and feeds it to the adaptive controller; {@code atNanos} ends its latency. */
    private ProviderSignal signal(HttpHeaders headers, int status, String body, long atNanos) {
        ProviderSignal s = upstream.normaliser().normalise(status, new SignalHeaders(headers), body, core.clock.epochMillis());
        core.feedback.onResponse(x.deployment.id(), s, atNanos - sentAtNanos);
        return s;
    }

    private void onError(HttpHeaders r, int status, byte[] bytes) {
        ProviderSignal s = signal(r, status, new String(bytes, StandardCharsets.UTF_8));
        if (status == 429) {
            long delay = Math.max(1, s.retryAfterMillis().orElse(DEFAULT_RETRY_MILLIS));
            long classBudget = core.config.classes().get(x.trafficClass).maxQueueWait().toMillis();
            long deadlineLeft = x.deadlineNanos == Long.MAX_VALUE ? Long.MAX_VALUE
                    : (x.deadlineNanos - core.clock.nanos()) / 1_000_000;
            if (s.retryable() && delay <= classBudget && delay < deadlineLeft && upstream.retries().tryRetry()) {
                core.ledger.recordGatewayRetry();
                retryTimer = core.vertx.setTimer(delay, id -> {
                    if (x.state != Exchange.State.DONE) {
                        dispatch();
                    }
                });
                return;
            }
            core.ledger.recordProviderRejection();
            x.settle(new Usage(0, 0));
            x.reject(providerRejection(s));
            return;
        }
        x.settle(new Usage(0, 0));
        passHeaders(r);
        copy(r, "retry-after");
        if (x.plan.translation() == UpstreamPlan.Translation.NATIVE) {
            String type = r.get("content-type");
            x.answer(status, type != null ? type : "application/json", Buffer.buffer(bytes));
        } else {
            x.answer(status, "application/json",
                    Buffer.buffer(ProxyJson.bytes(ProviderErrors.toOpenAi(x.plan.format(), bytes, status))));
        }
    }

    private RejectionView providerRejection(ProviderSignal s) {
        long retry = s.retryAfterMillis().orElse(DEFAULT_RETRY_MILLIS * 4);
        String limiter = s.limitHit().map(UpstreamCall::limiterName).orElse("none");
        String message = "The provider rejected the request after Sluice admitted it (" + s.reason() + ")"
                + (s.retryable() ? "; retry after the delay given." : "; retrying will not help until its quota is raised.");
        return new RejectionView(GatewayDecision.ADMITTED_THEN_PROVIDER_REJECTED, "provider_" + s.reason(), message,
                limiter, "deployment:" + x.deployment.id(), x.deployment.kind().wireName(), x.profile.id(),
                x.profile.model(), retry, s.retryable(), x.key.tenant(), x.key.id(), x.trafficClass.wireName(),
                x.estimate.inputTokens(), x.estimate.outputTokens(), x.traceId);
    }

    private static String limiterName(LimitKind k) {
        return switch (k) {
            case REQUESTS -> "rpm";
            case INPUT_TOKENS -> "input_tpm";
            case OUTPUT_TOKENS -> "output_tpm";
            case TOKENS -> "tpm";
            case CONCURRENCY -> "concurrency";
            case DAILY_QUOTA -> "daily_tokens";
            case SPEND_QUOTA -> "spend";
            case UNKNOWN -> "none";
        };
    }

    private void onWholeBody(HttpHeaders r, int status, byte[] bytes) {
        if (x.plan.translation() == UpstreamPlan.Translation.NATIVE) {
            // Passed through as it came: only its usage is read, without building the answer's tree.
            Optional<ObservedUsage> usage;
            try {
                usage = UsageExtractor.scan(x.plan.format(), bytes);
            } catch (UpstreamFormatException e) {
                notJson();
                return;
            }
            // Answer first: settling and learning need not keep the client waiting.
            passHeaders(r);
            x.answer(status, "application/json", wrapped(bytes));
            settle(usage);
            return;
        }
        Optional<JsonNode> json = ProxyJson.parse(bytes);
        if (json.isEmpty()) {
            notJson();
            return;
        }
        Optional<ObservedUsage> usage = UsageExtractor.extract(x.plan.format(), json.get());
        byte[] out;
        try {
            out = switch (x.plan.translation()) {
                case NATIVE -> throw new IllegalStateException("native answers are not translated");
                case FROM_ANTHROPIC -> ProxyJson.bytes(x.plan.forClient(AnthropicResponses.toChat(json.get(), meta())));
                case FROM_GEMINI -> ProxyJson.bytes(x.plan.forClient(GeminiResponses.toChat(json.get(), meta())));
            };
        } catch (UpstreamFormatException e) {
            x.settle(usage.map(this::toUsage).orElse(new Usage(x.estimate.inputTokens(), 0)));
            x.fail(502, "upstream_invalid_response", "The provider's answer could not be read: " + e.getMessage(),
                    Optional.empty());
            return;
        }
        passHeaders(r);
        x.answer(status, "application/json", wrapped(out));
        settle(usage);
    }

    private void notJson() {
        x.settle(new Usage(x.estimate.inputTokens(), 0));
        x.fail(502, "upstream_invalid_response", "The provider answered with a body that is not JSON.",
                Optional.empty());
    }

    private void relay(HttpHeaders r, int status) {
        var resp = x.resp;
        converter = switch (x.plan.translation()) {
            case NATIVE -> x.route.operation() == Operation.OPENAI_CHAT || x.route.operation() == Operation.OPENAI_COMPLETIONS
                    ? ChatStreams.fromOpenAi(x.plan.clientWantsUsage()) : null;
            case FROM_ANTHROPIC -> x.plan.forClient(ChatStreams.fromAnthropic(meta(), x.plan.clientWantsUsage()));
            case FROM_GEMINI -> x.plan.forClient(ChatStreams.fromGemini(meta(), x.plan.clientWantsUsage()));
        };
        tracker = converter != null ? converter.usage() : StreamUsageTracker.of(x.plan.format());
        String type = r.get("content-type");
        if (x.plan.format() == dev.sluice.gateway.translate.WireFormat.GEMINI && type != null
                && type.startsWith("application/json")) {
            jsonArrayStream = Buffer.buffer();
        }
        resp.setStatusCode(status);
        resp.putHeader("content-type", x.plan.translation() != UpstreamPlan.Translation.NATIVE || type == null
                ? "text/event-stream" : type);
        resp.putHeader("cache-control", "no-cache");
        passHeaders(r);
        x.quotaHeaders();
        resp.setChunked(true);
    }

    /** The next piece of a relayed stream. */
    private void relayed(Buffer buf) {
        Buffer out;
        if (converter != null) {
            byte[] in = buf.getBytes();
            byte[] converted = converter.feed(in);
            out = converted == in ? buf : wrapped(converted);
        } else {
            if (jsonArrayStream != null) {
                if (jsonArrayStream.length() + buf.length() <= MAX_KEPT_STREAM_BYTES) {
                    jsonArrayStream.appendBuffer(buf);
                }
            } else {
                tracker.feed(buf.getBytes());
            }
            out = buf;
        }
        hold(out);
    }

    private void relayEnded() {
        if (x.state == Exchange.State.DONE) {
            return;
        }
        Buffer last = converter != null ? wrapped(converter.finish()) : EMPTY;
        x.finish();
        endWith(takeHeld(last));
        settleStream();
    }

    private void relayBroken(Throwable t) {
        if (x.state == Exchange.State.DONE) {
            return;
        }
        settleStream();
        x.finish();
        if (converter != null) {
            endWith(takeHeld(wrapped(converter.fail(isTimeout(t) ? "the provider stopped sending" : "the provider broke the stream"))));
        } else {
            // A native stream cannot carry an error event its SDK would understand: break the connection.
            x.resp.reset();
        }
    }

    /**
     * Keeps {@code out} to be written with whatever else this upstream read delivers. The client
     * reads an HTTP chunk per upstream chunk (often one per event), all from one socket read;
     * written one by one, each would be flushed on its own, a system call and a TCP segment per
     * event. Held, they go out in one write once the read has been handled.
     */
    private void hold(Buffer out) {
        if (out.length() == 0) {
            return;
        }
        if (held == null) {
            held = out;
            x.context.runOnContext(v -> writeHeld());
        } else {
            if (!heldOwned) {
                held = Buffer.buffer(held.length() + out.length() + 64).appendBuffer(held);
                heldOwned = true;
            }
            held.appendBuffer(out);
        }
    }

    /** What is held, followed by {@code last}; nothing is held afterwards. */
    private Buffer takeHeld(Buffer last) {
        Buffer h = held;
        boolean owned = heldOwned;
        held = null;
        heldOwned = false;
        if (h == null || last.length() == 0) {
            return h == null ? last : h;
        }
        return (owned ? h : Buffer.buffer(h.length() + last.length()).appendBuffer(h)).appendBuffer(last);
    }

    /** Writes what one upstream read delivered, pausing the upstream while the client is behind. */
    private void writeHeld() {
        if (held == null || x.state == Exchange.State.DONE) {
            return; // the stream ended (and wrote what was held) or broke meanwhile
        }
        var resp = x.resp;
        resp.write(takeHeld(EMPTY));
        if (resp.writeQueueFull() && stallTimer < 0) {
            call.pause();
            // A client that stops reading holds the stream, the upstream call and the reservation: give up on it
            // when it has not read for as long as we would wait for a silent provider.
            stallTimer = core.vertx.setTimer(core.config.server().upstreamTimeout().toMillis(), id -> {
                stallTimer = -1;
                if (x.state != Exchange.State.DONE) {
                    settleStream();
                    x.finish();
                    call.cancel();
                    resp.reset();
                }
            });
            resp.drainHandler(v -> {
                if (stallTimer >= 0) {
                    core.vertx.cancelTimer(stallTimer);
                    stallTimer = -1;
                }
                call.resume();
            });
        }
    }

    /** A buffer over {@code bytes}, not a copy of them ({@code Buffer.buffer(byte[])} copies); the bytes must not change after. */
    static Buffer wrapped(byte[] bytes) {
        return BufferInternal.buffer(Unpooled.wrappedBuffer(bytes));
    }

    /** Ends the stream, sending {@code last} with the final chunk; an empty buffer is never written on its own. */
    private void endWith(Buffer last) {
        if (last.length() > 0) {
            x.resp.end(last);
        } else {
            x.resp.end();
        }
    }

    private void settleStream() {
        if (jsonArrayStream != null) {
            Optional<ObservedUsage> whole = UsageExtractor.extract(x.plan.format(), jsonArrayStream.getBytes());
            if (whole.isPresent()) {
                settle(whole);
                return;
            }
        }
        settle(Optional.of(tracker.usage()));
    }

    private void settle(Optional<ObservedUsage> observed) {
        if (observed.isEmpty()) {
            x.settle(new Usage(x.estimate.inputTokens(), 0));
            return;
        }
        ObservedUsage u = observed.get();
        x.settle(toUsage(u));
        if (u.reportedByProvider()) {
            core.estimator.learn(x.profile.estimatorProfile(), x.estimateRoute, x.estimate, u.toActualTokens());
        }
    }

    private Usage toUsage(ObservedUsage u) {
        long in = u.inputTokens() + (x.profile.cacheReadCountsAgainstInputLimit() ? u.cacheReadTokens() : 0);
        if (!u.reportedByProvider() && in == 0) {
            in = x.estimate.inputTokens(); // the prompt was sent, so the provider counted it
        }
        return new Usage(in, u.outputTokens());
    }

    private CompletionMeta meta() {
        return new CompletionMeta("chatcmpl-" + x.traceId.substring(0, 24), x.profile.model(), core.clock.epochMillis() / 1000);
    }

    private void passHeaders(HttpHeaders r) {
        for (String name : PASSED_HEADERS) {
            copy(r, name);
        }
    }

    private void copy(HttpHeaders r, String name) {
        String v = r.get(name);
        if (v != null) {
            x.resp.putHeader(name, v);
        }
    }
}
