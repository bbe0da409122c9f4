package dev.sluice.gateway.trace;

import dev.sluice.runtime.config.TracingSettings;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.runtime.event.TokenCounts;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.concurrent.TimeUnit;

/**
 * OpenTelemetry spans made from the lifecycle's request events: one server span per request (its
 * trace and span ids are the request's own, its parent the caller's {@code traceparent}), and one
 * client span per provider attempt below it, with the GenAI attributes and Sluice's decision. The
 * spans are made after the request ended, with the times it recorded, so tracing adds nothing to
 * a request's way but this event's handling; export runs on the SDK's own thread.
 */
public final class SluiceTracing implements RequestEventSink, AutoCloseable {

    private static final String SCOPE = "dev.sluice.gateway";

    /** The ids the next span gets: the request's own, so that the span and the ledger name one request alike. */
    private static final class NextIds implements IdGenerator {
        private final ThreadLocal<String[]> next = new ThreadLocal<>();

        @Override
        public String generateSpanId() {
            String[] n = next.get();
            if (n != null && n[1] != null) {
                String s = n[1];
                n[1] = null;
                return s;
            }
            return IdGenerator.random().generateSpanId();
        }

        @Override
        public String generateTraceId() {
            String[] n = next.get();
            return n != null && n[0] != null ? n[0] : IdGenerator.random().generateTraceId();
        }
    }

    private final SdkTracerProvider provider;
    private final Tracer tracer;
    private final NextIds ids = new NextIds();

    private SluiceTracing(SpanProcessor processor, String serviceName) {
        this.provider = SdkTracerProvider.builder().setIdGenerator(ids).addSpanProcessor(processor)
                .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
                        AttributeKey.stringKey("service.name"), serviceName))))
                .build();
        this.tracer = provider.get(SCOPE);
    }

    /** Spans to the OTLP/HTTP collector {@code settings} names, in batches, from the SDK's own thread. */
    public static SluiceTracing otlp(TracingSettings settings) {
        return new SluiceTracing(BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder()
                .setEndpoint(settings.endpoint().toString()).build()).build(), settings.serviceName());
    }

    /** Every span to {@code exporter} as it ends (tests, or an embedder's own exporter). */
    public static SluiceTracing to(SpanExporter exporter, String serviceName) {
        return new SluiceTracing(SimpleSpanProcessor.create(exporter), serviceName);
    }

    @Override
    public void onRequest(RequestEvent e) {
        try {
            span(e);
        } catch (RuntimeException x) {
            // a span that cannot be made must not break the request it describes
        } finally {
            ids.next.remove();
        }
    }

    private void span(RequestEvent e) {
        Context parent = e.parentSpanId().map(p -> Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(
                e.traceId(), p, TraceFlags.getSampled(), TraceState.getDefault())))).orElse(Context.root());
        ids.next.set(new String[] {e.traceId(), e.spanId()});
        long start = TimeUnit.MILLISECONDS.toNanos(e.receivedAtEpochMillis());
        SpanBuilder b = tracer.spanBuilder(e.operation()).setParent(parent).setSpanKind(SpanKind.SERVER)
                .setStartTimestamp(start, TimeUnit.NANOSECONDS)
                .setAttribute("sluice.decision", e.decision())
                .setAttribute("sluice.attempts", e.attempts())
                .setAttribute("sluice.queue_wait_ms", TimeUnit.NANOSECONDS.toMillis(e.queueWaitNanos()))
                .setAttribute("sluice.brownout", e.brownout())
                .setAttribute("sluice.borrowed", e.borrowed())
                .setAttribute("sluice.streaming", e.streaming())
                .setAttribute("http.response.status_code", e.status())
                .setAttribute("sluice.estimate.input_tokens", e.estimate().input() + e.estimate().cacheRead())
                .setAttribute("sluice.estimate.output_tokens", e.estimate().output());
        usage(b, e.usage());
        e.profile().ifPresent(v -> b.setAttribute("sluice.profile", v));
        e.trafficClass().ifPresent(v -> b.setAttribute("sluice.class", v));
        e.deployment().ifPresent(v -> b.setAttribute("sluice.deployment", v));
        e.providerModel().ifPresent(v -> b.setAttribute("gen_ai.request.model", v));
        e.caller().ifPresent(c -> b.setAttribute("sluice.tenant", c.tenant()).setAttribute("sluice.api_key_id",
                c.apiKeyId()));
        e.gatewayDecision().ifPresent(v -> b.setAttribute("sluice.gateway_decision", v));
        e.decider().ifPresent(d -> b.setAttribute("sluice.limiter", d.limiter()).setAttribute("sluice.scope",
                d.scope()));
        e.code().ifPresent(v -> b.setAttribute("error.type", v));
        e.mode().ifPresent(v -> b.setAttribute("sluice.mode", v));
        e.fallback().ifPresent(v -> b.setAttribute("sluice.fallback", v));
        if (e.retryAfterMillis().isPresent()) {
            b.setAttribute("sluice.retry_after_ms", e.retryAfterMillis().getAsLong());
        }
        Span request = b.startSpan();
        if (e.status() >= 500) {
            request.setStatus(StatusCode.ERROR);
        }
        Context inside = parent.with(request);
        long end = start + e.latencyNanos();
        for (AttemptEvent a : e.attemptEvents()) {
            attempt(inside, e.operation(), a, start, end);
        }
        request.end(end, TimeUnit.NANOSECONDS);
    }

    /**
     * An attempt's client span, kept inside its request's span: both starts are known to the
     * millisecond only, so an attempt that began in a later millisecond than its request would
     * otherwise end up to a millisecond after it.
     */
    private void attempt(Context parent, String operation, AttemptEvent a, long requestStart, long requestEnd) {
        String op = dev.sluice.gateway.metrics.GenAiNames.operationName(operation);
        long start = Math.min(Math.max(TimeUnit.MILLISECONDS.toNanos(a.startedAtEpochMillis()), requestStart),
                requestEnd);
        SpanBuilder b = tracer.spanBuilder(op + " " + a.providerModel()).setParent(parent)
                .setSpanKind(SpanKind.CLIENT).setStartTimestamp(start, TimeUnit.NANOSECONDS)
                .setAttribute("gen_ai.operation.name", op)
                .setAttribute("gen_ai.provider.name", dev.sluice.gateway.metrics.GenAiNames.providerName(a.provider()))
                .setAttribute("gen_ai.request.model", a.providerModel())
                .setAttribute("sluice.deployment", a.deployment())
                .setAttribute("sluice.attempt", a.attempt())
                .setAttribute("sluice.result", a.result().wireName())
                .setAttribute("sluice.settlement", a.settlement().wireName());
        usage(b, a.usage());
        if (a.status() > 0) {
            b.setAttribute("http.response.status_code", a.status());
        }
        if (a.result() != AttemptResult.ANSWERED) {
            b.setAttribute("error.type", a.result().wireName());
        }
        a.limitHit().ifPresent(v -> b.setAttribute("sluice.provider.limit", v));
        if (a.providerRetryAfterMillis().isPresent()) {
            b.setAttribute("sluice.provider.retry_after_ms", a.providerRetryAfterMillis().getAsLong());
        }
        if (a.retryDelayMillis().isPresent()) {
            b.setAttribute("sluice.retry_delay_ms", a.retryDelayMillis().getAsLong());
        }
        Span s = b.startSpan();
        if (a.result() == AttemptResult.FAILED) {
            s.setStatus(StatusCode.ERROR);
        }
        s.end(Math.min(start + a.latencyNanos(), requestEnd), TimeUnit.NANOSECONDS);
    }

    /** The conventions' input counts every prompt token, cached or not; cache reads are a part of it. */
    private static void usage(SpanBuilder b, TokenCounts u) {
        b.setAttribute("gen_ai.usage.input_tokens", u.input() + u.cacheRead())
                .setAttribute("gen_ai.usage.output_tokens", u.output())
                .setAttribute("gen_ai.usage.cache_read.input_tokens", u.cacheRead());
    }

    /** Exports what is still buffered, then stops. */
    @Override
    public void close() {
        provider.shutdown().join(10, TimeUnit.SECONDS);
    }
}
