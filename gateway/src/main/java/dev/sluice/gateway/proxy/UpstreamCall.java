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
import dev.sluice.gateway.http.ErrorBodies;
import dev.sluice.gateway.translate.ProviderErrors;
import dev.sluice.gateway.translate.StreamErrors;
import dev.sluice.gateway.translate.StreamUsageTracker;
import dev.sluice.gateway.translate.JsonBodyUsage;
import dev.sluice.gateway.translate.UpstreamFormatException;
import dev.sluice.gateway.translate.UsageExtractor;
import dev.sluice.gateway.upstream.ResponseListener;
import dev.sluice.gateway.upstream.UpstreamCallHandle;
import dev.sluice.governor.GatewayDecision;
import dev.sluice.runtime.request.AfterAttempt;
import dev.sluice.runtime.request.Attempt;
import dev.sluice.runtime.request.AttemptOutcome;
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
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;

/**
 * The upstream half of an {@link Exchange}: sends each attempt with the deployment's credentials,
 * relays the answer (streams with back-pressure), reads its usage and signal, and ends the
 * attempt with what happened ({@link Attempt#finish}); the lifecycle decides what follows,
 * including whether to send again.
 */
final class UpstreamCall {

    /** The most of a JSON-array stream kept to read its usage at the end; beyond it the estimate stands. */
    static final int MAX_KEPT_STREAM_BYTES = 8 * 1024 * 1024;
    /**
     * A whole native answer larger than this is passed on as it arrives instead of held: its usage
     * is read on the way ({@link JsonBodyUsage}), so a thousand large answers at once hold a
     * thousand times this, not a thousand answers. Smaller ones are held, so that a body that is
     * not JSON can still be answered 502.
     */
    static final int PASS_ON_ABOVE_BYTES = 256 * 1024;

    /** The retry hint, in seconds, of an answer that found no room in the translation budget. */
    static final long TRANSLATION_RETRY_SECONDS = 2;

    /** The retry hint given to a client for a provider 429 that came with none. */
    static final long UNHINTED_PROVIDER_RETRY_MILLIS = 1_000;

    /** An answer that reported no usage: charged the estimated input, as the prompt was sent. */
    private static final ObservedUsage NO_USAGE = new ObservedUsage(0, 0, 0, 0, false);

    /** No events; shared, so it is never written or appended to. */
    private static final Buffer EMPTY = Buffer.buffer(0);

    /** Response headers of the provider passed to the client; its rate-limit headers describe a shared quota and are not. */
    private static final List<String> PASSED_HEADERS = List.of("x-request-id", "request-id", "openai-processing-ms");

    private final Exchange x;
    private final ClientRequest r;
    private final GatewayCore core;
    private final GatewayCore.Upstream upstream;
    /** The lifecycle's attempt being sent, or waiting to be sent again. */
    private Attempt attempt;
    /** The call of the attempt in flight; null before the first. */
    private UpstreamCallHandle call;
    private long retryTimer = -1;
    private long stallTimer = -1;
    /** A stream's signal, read from its head. */
    private ProviderSignal streamSignal;
    private final byte[] body;
    private StreamUsageTracker tracker;
    /** Gemini streams without {@code alt=sse} are one JSON array: kept (bounded) to read its last usage. */
    private Buffer jsonArrayStream;
    private ChatStreamConverter converter;
    /** Stream output of the current upstream read, not yet written; see {@link #hold}. */
    private Buffer held;
    /** Non-null while a whole native answer is passed on as it arrives: what reads its usage. */
    private JsonBodyUsage passing;
    /** Whether {@link #held} is a buffer of ours (appendable) rather than one handed to us. */
    private boolean heldOwned;
    /** A whole answer's place in the translation budget while it is gathered to be translated; else null. */
    private TranslationRoom room;

    UpstreamCall(Exchange x, Attempt attempt) {
        this.x = x;
        this.r = x.request;
        this.core = x.core;
        this.attempt = attempt;
        this.upstream = core.upstream(attempt.deployment());
        this.body = x.plan.bytes();
    }

    void dispatch() {
        retryTimer = -1;
        attempt.sending();
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, x.plan.pathAndQuery(),
                Unpooled.wrappedBuffer(body));
        HttpHeaders h = req.headers();
        h.set("content-type", "application/json");
        h.set("accept", x.plan.streaming() ? "text/event-stream" : "application/json");
        h.set("accept-encoding", "identity");
        h.set("traceparent", TraceIds.upstreamTraceparent(r.traceId));
        h.setInt("content-length", body.length);
        UpstreamPlan.credentials(h, attempt.deployment(), r.req.headers());
        call = r.client.send(upstream.origin(), req, new Answer());
    }

    /** The client went away: stop the upstream call; the attempt is charged what was produced. */
    void clientGone() {
        closeRoom();
        if (retryTimer >= 0) {
            // Waiting to send again: the lifecycle ends the waiting attempt itself.
            core.vertx.cancelTimer(retryTimer);
            retryTimer = -1;
            return;
        }
        if (attempt.finished()) {
            // It ended as it was answered (the close came with the answer's last write).
            if (call != null) {
                call.cancel();
            }
            return;
        }
        if (tracker != null) {
            attempt.finish(new AttemptOutcome.ClientGone(true, Optional.of(streamUsage())));
        } else {
            attempt.finish(new AttemptOutcome.ClientGone(call != null && call.sent(), Optional.empty()));
        }
        if (call != null) {
            call.cancel();
        }
    }

    private void onFailure(Throwable t) {
        boolean timeout = isTimeout(t);
        ProviderSignal s = timeout ? SignalNormaliser.timeout() : SignalNormaliser.connectionFailed();
        // A call that never left (or whose connection was refused) reached no provider.
        AfterAttempt after = attempt.finish(!call.sent() || t instanceof ConnectException ? new AttemptOutcome.NeverSent(s)
                : new AttemptOutcome.Failed(s, Optional.empty()));
        if (after instanceof AfterAttempt.Reroute) {
            // Nothing was written to the client: the next allowed deployment is asked for, its reservation anew.
            x.reroute();
            return;
        }
        if (timeout) {
            r.fail(504, "upstream_timeout", "The provider did not answer within "
                    + core.config().server().upstreamTimeout().toMillis() + " ms.", Optional.empty());
        } else {
            r.fail(502, "upstream_unavailable", "The provider could not be reached or broke the connection.",
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

    /** Whether the request is answered or its client gone: nothing more may be written. */
    private boolean done() {
        return r.state == ClientRequest.State.DONE;
    }

    /**
     * The provider's answer to one attempt. An error status or a whole answer is gathered and
     * handled at its end; a stream is relayed as it comes.
     */
    private final class Answer implements ResponseListener {
        private int status;
        private HttpHeaders headers;
        private boolean relaying;
        /**
         * The body of a whole answer or an error, as it arrives: one array, sized by the answer's
         * {@code content-length} when it has one, so that the answer is held once (not as a growing
         * buffer and then a copy of it); {@link #gatheredLength} of it is filled.
         */
        private byte[] gathered;
        private int gatheredLength;

        @Override
        public void onHead(int status, HttpHeaders headers) {
            try {
                headArrived(status, headers);
            } catch (RuntimeException e) {
                r.internalError(e);
            }
        }

        private void headArrived(int status, HttpHeaders headers) {
            if (done()) {
                call.cancel();
                return;
            }
            this.status = status;
            this.headers = headers;
            if (status < 300 && x.plan.streaming()) {
                relaying = true;
                streamSignal = normalise(headers, status, "");
                attempt.streamHead(streamSignal);
                relay(headers, status);
            } else {
                attempt.responseHead();
            }
        }

        @Override
        public void onContent(Buffer chunk) {
            try {
                contentArrived(chunk);
            } catch (RuntimeException e) {
                closeRoom();
                r.internalError(e);
            }
        }

        private void contentArrived(Buffer chunk) {
            if (done()) {
                return;
            }
            attempt.firstContent();
            take(chunk);
        }

        private void take(Buffer chunk) {
            if (done()) {
                return;
            }
            if (relaying) {
                relayed(chunk);
            } else if (passing != null) {
                passOn(chunk);
            } else if (room != null && room.waiting()) {
                room.park(chunk);
            } else if (gatheredLength + (long) chunk.length() > core.config().server().maxAnswerBytes()) {
                tooLarge();
            } else if (status >= 200 && status < 300 && x.plan.translation() == UpstreamPlan.Translation.NATIVE
                    && (gatheredLength + (long) chunk.length() > PASS_ON_ABOVE_BYTES
                            || gatheredLength == 0 && declaredLength() > PASS_ON_ABOVE_BYTES)) {
                // Passed on from its first byte when it says it is large, so none of it is gathered in vain.
                startPassing(chunk);
            } else if (status >= 200 && status < 300 && x.plan.translation() != UpstreamPlan.Translation.NATIVE) {
                gatherToTranslate(chunk);
            } else {
                gather(chunk);
            }
        }

        /**
         * A piece of an answer read whole to be translated: gathered once the translation budget
         * holds room for it (the answer's declared length at its first piece), else kept aside,
         * the provider paused, until there is room ({@link TranslationRoom}).
         */
        private void gatherToTranslate(Buffer chunk) {
            if (room == null) {
                room = new TranslationRoom(core.translation, core.vertx, r.context,
                        core.config().server().translationWait().toMillis(), call);
            }
            long size = Math.min(sizeFor(chunk.length()), core.translation.capacity());
            if (room.reserve(size, chunk, this::roomMade, this::waitedTooLong)) {
                gather(chunk);
            }
        }

        /** The budget made room: what was kept aside is gathered, and the answer ended if it had meanwhile. */
        private void roomMade() {
            try {
                boolean ended = room.endedMeanwhile();
                for (Buffer piece : room.unpark()) {
                    take(piece);
                }
                if (ended) {
                    endArrived();
                }
            } catch (RuntimeException e) {
                closeRoom();
                r.internalError(e);
            }
        }

        /**
         * No room was made within {@code server.translation_wait}: the call is cut off and the
         * client told (503, to retry later). The provider produced the answer, so the
         * reservation is settled as estimated.
         */
        private void waitedTooLong() {
            if (done()) {
                return;
            }
            gathered = null;
            gatheredLength = 0;
            call.cancel();
            attempt.finish(new AttemptOutcome.Failed(normalise(headers, status, ""), Optional.of(new ObservedUsage(
                    x.estimate.inputTokens(), x.estimate.outputTokens(), 0, 0, false))));
            r.resp.putHeader("retry-after", Long.toString(TRANSLATION_RETRY_SECONDS));
            r.fail(503, "translation_budget_exhausted", "The gateway holds as many answers to translate as "
                    + "server.translation_budget_bytes allows, and this one found no room within "
                    + core.config().server().translationWait().toMillis() + " ms (server.translation_wait); retry "
                    + "later, or stream it.", Optional.empty());
        }

        /**
         * The answer is large and needs no translation: its head and what was gathered go to the
         * client now, the rest as it arrives (paused while the client is behind, as a stream).
         */
        private void startPassing(Buffer chunk) {
            passing = new JsonBodyUsage(x.plan.format());
            var resp = r.resp;
            resp.setStatusCode(status);
            String type = headers.get("content-type");
            resp.putHeader("content-type", type != null ? type : "application/json");
            passHeaders(headers);
            r.quotaHeaders();
            resp.setChunked(true);
            r.streamStarted(status);
            if (gatheredLength > 0) {
                passing.feed(gathered, 0, gatheredLength);
                resp.write(BufferInternal.buffer(Unpooled.wrappedBuffer(gathered, 0, gatheredLength)));
            }
            gathered = null;
            gatheredLength = 0;
            passOn(chunk);
        }

        /**
         * Written at once, not held for the rest of the read as a stream's events are: one read
         * can deliver a whole large answer, and holding it would be holding the answer.
         */
        private void passOn(Buffer chunk) {
            byte[] bytes = chunk.getBytes();
            passing.feed(bytes, 0, bytes.length);
            r.resp.write(chunk);
            pauseWhileBehind();
        }

        private void gather(Buffer chunk) {
            int needed = gatheredLength + chunk.length();
            if (gathered == null || needed > gathered.length) {
                long size = sizeFor(chunk.length());
                gathered = gathered == null ? new byte[(int) size] : java.util.Arrays.copyOf(gathered, (int) size);
            }
            chunk.getBytes(0, chunk.length(), gathered, gatheredLength);
            gatheredLength = needed;
        }

        /** The size of the array that holds what was gathered and {@code more} bytes. */
        private long sizeFor(int more) {
            int needed = gatheredLength + more;
            if (gathered != null && needed <= gathered.length) {
                return gathered.length;
            }
            long cap = core.config().server().maxAnswerBytes();
            long declared = gathered == null ? declaredLength() : -1;
            // The declared length when it is honest, else room to double into, never beyond the cap.
            return declared >= needed ? declared
                    : Math.min(cap, Math.max(needed, gathered == null ? needed : 2L * gathered.length));
        }

        /** The answer's {@code content-length} when it declares one within the cap, else -1. */
        private long declaredLength() {
            String v = headers == null ? null : headers.get("content-length");
            if (v == null) {
                return -1;
            }
            try {
                long n = Long.parseLong(v.trim());
                return n >= 0 && n <= core.config().server().maxAnswerBytes() ? n : -1;
            } catch (NumberFormatException e) {
                return -1;
            }
        }

        @Override
        public void onEnd() {
            try {
                endArrived();
            } catch (RuntimeException e) {
                closeRoom();
                r.internalError(e);
            }
        }

        private void endArrived() {
            if (done()) {
                return; // the client left: the attempt was ended then
            }
            if (room != null && room.waiting()) {
                room.parkEnd(); // ended once what was kept aside is gathered
                return;
            }
            if (relaying) {
                relayEnded();
            } else if (passing != null) {
                passEnded(headers, status);
            } else if (status >= 300) {
                onError(headers, status, gatheredBytes());
            } else {
                onWholeBody(headers, status, gatheredBytes());
                if (room != null) {
                    // Translated: its room goes back once the rewritten answer (about its size) has left for the client.
                    TranslationRoom done = room;
                    room = null;
                    r.whenWritten(done::close);
                }
            }
        }

        /**
         * A whole answer beyond {@code server.max_answer_bytes}: it is not held, the call is cut off and the
         * client told (502). The provider produced it, so the reservation is settled as estimated.
         */
        private void tooLarge() {
            closeRoom();
            gathered = null;
            gatheredLength = 0;
            call.cancel();
            attempt.finish(new AttemptOutcome.Failed(normalise(headers, status, ""), Optional.of(new ObservedUsage(
                    x.estimate.inputTokens(), x.estimate.outputTokens(), 0, 0, false))));
            r.fail(502, "upstream_answer_too_large", "The provider's answer is larger than the "
                    + core.config().server().maxAnswerBytes() + " bytes this gateway holds (server.max_answer_bytes); "
                    + "ask for less, or stream it.", Optional.empty());
        }

        private byte[] gatheredBytes() {
            if (gathered == null) {
                return new byte[0];
            }
            // Exact when the declared length was honest (the common case): then no copy is made.
            return gatheredLength == gathered.length ? gathered : java.util.Arrays.copyOf(gathered, gatheredLength);
        }

        @Override
        public void onFailure(Throwable cause) {
            closeRoom();
            if (done()) {
                return;
            }
            if (relaying) {
                relayBroken(cause);
            } else if (passing != null) {
                passBroken(cause);
            } else {
                UpstreamCall.this.onFailure(cause);
            }
        }
    }

    /** Gives back the current answer's room in the translation budget, if it has one. */
    private void closeRoom() {
        if (room != null) {
            room.close();
            room = null;
        }
    }

    /** The provider's answer, normalised; adaptive control hears of it when the attempt ends. */
    private ProviderSignal normalise(HttpHeaders headers, int status, String body) {
        return upstream.normaliser().normalise(status, new SignalHeaders(headers), body, core.clock.epochMillis());
    }

    private void onError(HttpHeaders h, int status, byte[] bytes) {
        ProviderSignal s = normalise(h, status, new String(bytes, StandardCharsets.UTF_8));
        AttemptOutcome outcome = status == 429 ? new AttemptOutcome.Throttled(s)
                : status >= 500 || status == 408 ? new AttemptOutcome.Failed(s, Optional.empty())
                : new AttemptOutcome.Refused(s);
        switch (attempt.finish(outcome)) {
            case AfterAttempt.Retry retry -> {
                attempt = retry.next();
                retryTimer = core.vertx.setTimer(retry.delayMillis(), id -> {
                    if (!done()) {
                        dispatch();
                    }
                });
                return;
            }
            case AfterAttempt.Reroute elsewhere -> {
                x.reroute();
                return;
            }
            case AfterAttempt.Done d -> { }
        }
        if (status == 429) {
            r.reject(providerRejection(s));
            return;
        }
        if (status == 401 || status == 403) {
            // The provider refused the deployment's own credentials: the client's key was fine, so it must not see
            // an authentication error (its SDK would blame its own key), nor any of the provider's text.
            var d = attempt.deployment();
            r.fail(502, "provider_credentials_rejected", "The provider refused the credentials of deployment '" + d.id()
                    + "' (HTTP " + status + "); your API key is fine. An operator must fix the deployment's "
                    + "api_key_env.", Optional.empty());
            return;
        }
        passHeaders(h);
        // The provider's hint is relayed as Sluice gives its own: at most a minute, never an invitation to
        // wait an hour (nor to hammer: it is the provider's own, normalised).
        s.retryAfterMillis().ifPresent(ms -> r.resp.putHeader("retry-after", Long.toString(
                (Math.min(ms, ErrorBodies.MAX_CLIENT_RETRY_MILLIS) + 999) / 1000)));
        if (x.plan.translation() == UpstreamPlan.Translation.NATIVE) {
            r.answer(status, "application/json",
                    Buffer.buffer(ProxyJson.bytes(ProviderErrors.scrubbed(x.plan.format(), bytes, status))));
        } else {
            r.answer(status, "application/json",
                    Buffer.buffer(ProxyJson.bytes(ProviderErrors.toOpenAi(x.plan.format(), bytes, status))));
        }
    }

    private RejectionView providerRejection(ProviderSignal s) {
        long retry = s.retryAfterMillis().orElse(UNHINTED_PROVIDER_RETRY_MILLIS);
        String limiter = s.limitHit().map(LimitKind::limiterName).orElse("none");
        String message = "The provider rejected the request after Sluice admitted it (" + s.reason() + ")"
                + (s.retryable() ? "; retry after the delay given." : "; retrying will not help until its quota is raised.");
        var d = attempt.deployment();
        return new RejectionView(GatewayDecision.ADMITTED_THEN_PROVIDER_REJECTED, "provider_" + s.reason(), message,
                limiter, "deployment:" + d.id(), d.kind().wireName(), x.profile.id(),
                x.profile.on(d.id()).model(), retry, s.retryable(), r.key.tenant(), r.key.id(),
                x.trafficClass.wireName(), x.estimate.inputTokens(), x.estimate.outputTokens(), r.traceId,
                Optional.empty(), Optional.empty(), r.lifecycle.fallbackAllowed(), r.lifecycle.fallbackForbiddenBy());
    }

    private void onWholeBody(HttpHeaders h, int status, byte[] bytes) {
        // A whole answer's signal is taken after the client has it: the adaptive controller can wait, the client
        // should not. Its latency is still the provider's, up to the response head.
        if (x.plan.translation() == UpstreamPlan.Translation.NATIVE) {
            // Passed through as it came: only its usage is read, without building the answer's tree.
            Optional<ObservedUsage> usage;
            try {
                usage = UsageExtractor.scan(x.plan.format(), bytes);
            } catch (UpstreamFormatException e) {
                unreadable(h, status, Optional.empty(), "The provider answered with a body that is not JSON.");
                return;
            }
            // Answer first: settling and learning need not keep the client waiting.
            passHeaders(h);
            r.answer(status, "application/json", wrapped(bytes));
            answered(h, status, usage);
            return;
        }
        Optional<JsonNode> json = ProxyJson.parse(bytes);
        if (json.isEmpty()) {
            unreadable(h, status, Optional.empty(), "The provider answered with a body that is not JSON.");
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
            unreadable(h, status, usage, "The provider's answer could not be read: " + e.getMessage());
            return;
        }
        passHeaders(h);
        r.answer(status, "application/json", wrapped(out));
        answered(h, status, usage);
    }

    /**
     * A passed-on answer ended: settled on the usage read on the way. One that turned out not to
     * be JSON has already reached the client as the provider sent it; its attempt failed.
     */
    private void passEnded(HttpHeaders h, int status) {
        Optional<ObservedUsage> usage;
        try {
            usage = passing.finish();
        } catch (UpstreamFormatException e) {
            attempt.finish(new AttemptOutcome.Failed(normalise(h, status, ""), Optional.empty()));
            r.endStream(takeHeld(EMPTY));
            return;
        }
        answered(h, status, usage);
        r.endStream(takeHeld(EMPTY));
    }

    /**
     * A passed-on answer broke off: the attempt failed with the estimated prompt (the provider
     * read it), and the client's connection is reset, since a whole answer has no way to say so
     * in its body.
     */
    private void passBroken(Throwable t) {
        attempt.finish(new AttemptOutcome.Failed(isTimeout(t) ? SignalNormaliser.timeout()
                : SignalNormaliser.connectionFailed(), Optional.empty()));
        r.state = ClientRequest.State.DONE;
        held = null;
        r.resp.reset();
        r.lifecycle.answered(r.resp.getStatusCode(), Optional.of("upstream_answer_broken"), OptionalLong.empty());
    }

    /** Ends the attempt with a success; a count is made up of nothing when the answer reported no usage. */
    private void answered(HttpHeaders h, int status, Optional<ObservedUsage> usage) {
        attempt.finish(new AttemptOutcome.Answered(normalise(h, status, ""), usage.orElse(NO_USAGE)));
    }

    /** A success status whose body cannot be read: a failed attempt, 502 to the client. */
    private void unreadable(HttpHeaders h, int status, Optional<ObservedUsage> usage, String message) {
        attempt.finish(new AttemptOutcome.Failed(normalise(h, status, ""), usage));
        r.fail(502, "upstream_invalid_response", message, Optional.empty());
    }

    private void relay(HttpHeaders h, int status) {
        var resp = r.resp;
        converter = switch (x.plan.translation()) {
            case NATIVE -> r.route.operation() == Operation.OPENAI_CHAT || r.route.operation() == Operation.OPENAI_COMPLETIONS
                    ? ChatStreams.fromOpenAi(x.plan.clientWantsUsage()) : null;
            case FROM_ANTHROPIC -> x.plan.forClient(ChatStreams.fromAnthropic(meta(), x.plan.clientWantsUsage()));
            case FROM_GEMINI -> x.plan.forClient(ChatStreams.fromGemini(meta(), x.plan.clientWantsUsage()));
        };
        tracker = converter != null ? converter.usage() : StreamUsageTracker.of(x.plan.format());
        String type = h.get("content-type");
        if (x.plan.format() == dev.sluice.gateway.translate.WireFormat.GEMINI && type != null
                && type.startsWith("application/json")) {
            jsonArrayStream = Buffer.buffer();
        }
        resp.setStatusCode(status);
        resp.putHeader("content-type", x.plan.translation() != UpstreamPlan.Translation.NATIVE || type == null
                ? "text/event-stream" : type);
        resp.putHeader("cache-control", "no-cache");
        passHeaders(h);
        r.quotaHeaders();
        resp.setChunked(true);
        r.streamStarted(status);
    }

    /** The next piece of a relayed stream. */
    private void relayed(Buffer buf) {
        Buffer out;
        if (converter != null) {
            byte[] in = bytesOf(buf);
            byte[] converted = converter.feed(in);
            out = converted == in ? buf : wrapped(converted);
        } else {
            if (jsonArrayStream != null) {
                if (jsonArrayStream.length() + buf.length() <= MAX_KEPT_STREAM_BYTES) {
                    jsonArrayStream.appendBuffer(buf);
                }
            } else {
                tracker.feed(bytesOf(buf));
            }
            out = buf;
        }
        hold(out);
    }

    private void relayEnded() {
        if (converter == null && jsonArrayStream == null) {
            tracker.finish();
            if (!tracker.whole()) {
                // Cut short or garbled: the client is told in the route's own words, and what was produced is
                // settled as a failed attempt's usage.
                attempt.finish(new AttemptOutcome.Failed(SignalNormaliser.connectionFailed(), Optional.of(streamUsage())));
                r.endStream(takeHeld(wrapped(nativeStreamError("The provider's stream ended before the answer was "
                        + "complete, or carried data that is not JSON."))));
                return;
            }
        }
        Buffer last = converter != null ? wrapped(converter.finish()) : EMPTY;
        attempt.finish(new AttemptOutcome.Answered(streamSignal, streamUsage()));
        r.endStream(takeHeld(last));
    }

    private byte[] nativeStreamError(String message) {
        return StreamErrors.event(x.plan.format(), r.route.operation() == Operation.OPENAI_RESPONSES,
                jsonArrayStream != null, message);
    }

    private void relayBroken(Throwable t) {
        ProviderSignal s = isTimeout(t) ? SignalNormaliser.timeout() : SignalNormaliser.connectionFailed();
        attempt.finish(new AttemptOutcome.Failed(s, Optional.of(streamUsage())));
        if (converter != null) {
            r.endStream(takeHeld(wrapped(converter.fail(isTimeout(t) ? "the provider stopped sending" : "the provider broke the stream"))));
        } else {
            // The route's own error event, so its SDK raises an error rather than seeing a bare reset.
            r.endStream(takeHeld(wrapped(nativeStreamError(isTimeout(t) ? "The provider stopped sending mid-stream."
                    : "The provider broke the stream off."))));
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
            r.context.runOnContext(v -> writeHeld());
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
        if (held == null || done()) {
            return; // the stream ended (and wrote what was held) or broke meanwhile
        }
        r.resp.write(takeHeld(EMPTY));
        pauseWhileBehind();
    }

    /** Pauses the upstream while the client's write queue is full; gives up on a client that stops reading. */
    private void pauseWhileBehind() {
        var resp = r.resp;
        if (resp.writeQueueFull() && stallTimer < 0) {
            call.pause();
            // A client that stops reading holds the stream, the upstream call and the reservation: give up on it
            // when it has not read for as long as we would wait for a silent provider.
            stallTimer = core.vertx.setTimer(core.config().server().upstreamTimeout().toMillis(), id -> {
                stallTimer = -1;
                if (!done()) {
                    // Ended as a client that left: it has read nothing for the whole upstream timeout.
                    attempt.finish(new AttemptOutcome.ClientGone(true,
                            tracker != null ? Optional.of(streamUsage()) : Optional.empty()));
                    r.state = ClientRequest.State.DONE;
                    r.lifecycle.clientGone();
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

    /**
     * The bytes of {@code buf}: its own array when it wraps one whole array, as the upstream client's reads
     * do, else a copy (a copy per stream read was 3% of the gateway's allocation at 5,000 req/s, JFR).
     * Neither may be changed: the buffer goes on to the client.
     */
    static byte[] bytesOf(Buffer buf) {
        if (buf instanceof BufferInternal b) {
            io.netty.buffer.ByteBuf bb = b.getByteBuf();
            if (bb.hasArray() && bb.arrayOffset() == 0 && bb.readerIndex() == 0
                    && bb.readableBytes() == bb.array().length) {
                return bb.array();
            }
        }
        return buf.getBytes();
    }

    /** A buffer over {@code bytes}, not a copy of them ({@code Buffer.buffer(byte[])} copies); the bytes must not change after. */
    static Buffer wrapped(byte[] bytes) {
        return BufferInternal.buffer(Unpooled.wrappedBuffer(bytes));
    }

    /** What a stream produced so far: its last whole usage (a Gemini JSON array's), or what its tracker counted. */
    private ObservedUsage streamUsage() {
        if (jsonArrayStream != null) {
            Optional<ObservedUsage> whole = UsageExtractor.extract(x.plan.format(), jsonArrayStream.getBytes());
            if (whole.isPresent()) {
                return whole.get();
            }
        }
        return tracker.usage();
    }

    private CompletionMeta meta() {
        return new CompletionMeta("chatcmpl-" + r.traceId.substring(0, 24), x.profile.on(attempt.deployment().id()).model(), core.clock.epochMillis() / 1000);
    }

    private void passHeaders(HttpHeaders h) {
        for (String name : PASSED_HEADERS) {
            copy(h, name);
        }
    }

    private void copy(HttpHeaders h, String name) {
        String v = h.get(name);
        if (v != null) {
            r.resp.putHeader(name, v);
        }
    }
}
