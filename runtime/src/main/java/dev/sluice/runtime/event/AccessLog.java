package dev.sluice.runtime.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The access log: one JSON line per request, written by a thread of its own so that no event
 * loop waits on a disk. {@link #onRequest} only offers the event to a bounded queue and never
 * waits; when the writer falls that far behind, lines are dropped and counted
 * ({@link #dropped}). A line holds the request's ids, who asked (organisation, tenant, team and
 * the key's configured id, never the key), its class, profile, deployment, the admission decision,
 * status, error code, token counts and timings; never a header, a prompt or an answer, since the
 * {@link RequestEvent} it is made from holds none.
 */
public final class AccessLog implements RequestEventSink, AutoCloseable {

    /** Lines waiting for the writer at most; beyond it they are dropped rather than waited for. */
    public static final int QUEUE_CAPACITY = 16_384;

    private static final JsonFactory JSON = new JsonFactory();

    private final BlockingQueue<Optional<RequestEvent>> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final Writer out;
    private final boolean ownsOut;
    private final Thread writer;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();

    private AccessLog(Writer out, boolean ownsOut) {
        this.out = out;
        this.ownsOut = ownsOut;
        this.writer = Thread.ofPlatform().daemon().name("sluice-access-log").start(this::run);
    }

    /**
     * The access log {@code target} names: {@code off} (none: events go nowhere), {@code stdout},
     * or a file path, appended to and created when missing.
     */
    public static Optional<AccessLog> open(String target) {
        if (target.equals("off")) {
            return Optional.empty();
        }
        if (target.equals("stdout")) {
            return Optional.of(to(System.out));
        }
        try {
            Path p = Path.of(target);
            return Optional.of(new AccessLog(Files.newBufferedWriter(p, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE), true));
        } catch (IOException e) {
            throw new UncheckedIOException("access log " + target + " cannot be opened", e);
        }
    }

    /** An access log written to {@code stream}, which {@link #close} flushes but leaves open. */
    public static AccessLog to(OutputStream stream) {
        return new AccessLog(new java.io.BufferedWriter(new java.io.OutputStreamWriter(stream, StandardCharsets.UTF_8)),
                false);
    }

    @Override
    public void onRequest(RequestEvent event) {
        if (!queue.offer(Optional.of(event))) {
            dropped.incrementAndGet();
        }
    }

    /** Lines dropped because the writer was {@value #QUEUE_CAPACITY} lines behind. */
    public long dropped() {
        return dropped.get();
    }

    /** Lines written so far. */
    public long written() {
        return written.get();
    }

    /** Writes what is queued, then stops the writer. */
    @Override
    public void close() {
        try {
            queue.put(Optional.empty()); // the writer's signal to stop
            writer.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        List<Optional<RequestEvent>> batch = new ArrayList<>();
        try {
            while (true) {
                batch.add(queue.take());
                queue.drainTo(batch);
                for (Optional<RequestEvent> e : batch) {
                    if (e.isEmpty()) {
                        out.flush();
                        if (ownsOut) {
                            out.close();
                        }
                        return;
                    }
                    out.write(line(e.get()));
                    out.write('\n');
                    written.incrementAndGet();
                }
                batch.clear();
                out.flush(); // once the queue is empty: a line reaches the file within a batch's time
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // A log that cannot be written must not take the gateway with it; what remains is dropped.
            dropped.incrementAndGet();
        }
    }

    /** The JSON line for {@code e}, without its newline. */
    public static String line(RequestEvent e) {
        StringWriter s = new StringWriter(384);
        try (JsonGenerator g = JSON.createGenerator(s)) {
            g.writeStartObject();
            g.writeStringField("ts", Instant.ofEpochMilli(e.receivedAtEpochMillis()).toString());
            g.writeStringField("trace_id", e.traceId());
            g.writeStringField("span_id", e.spanId());
            g.writeStringField("operation", e.operation());
            if (e.caller().isPresent()) {
                Caller c = e.caller().get();
                g.writeStringField("org", c.org());
                g.writeStringField("tenant", c.tenant());
                g.writeStringField("team", c.team());
                g.writeStringField("key_id", c.apiKeyId());
            }
            optional(g, "class", e.trafficClass());
            optional(g, "profile", e.profile());
            optional(g, "deployment", e.deployment());
            optional(g, "provider", e.provider());
            g.writeStringField("decision", e.decision());
            optional(g, "gateway_decision", e.gatewayDecision());
            optional(g, "code", e.code());
            if (e.decider().isPresent()) {
                g.writeStringField("limiter", e.decider().get().limiter());
                g.writeStringField("scope", e.decider().get().scope());
            }
            g.writeNumberField("status", e.status());
            g.writeBooleanField("streaming", e.streaming());
            g.writeNumberField("attempts", e.attempts());
            g.writeNumberField("input_tokens", e.usage().input());
            g.writeNumberField("output_tokens", e.usage().output());
            g.writeNumberField("latency_ms", e.latencyNanos() / 1_000_000.0);
            millis(g, "ttft_ms", e.timeToFirstTokenNanos(), 1_000_000.0);
            if (e.queueWaitNanos() > 0) {
                g.writeNumberField("queue_ms", e.queueWaitNanos() / 1_000_000.0);
            }
            millis(g, "retry_after_ms", e.retryAfterMillis(), 1);
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return s.toString();
    }

    private static void optional(JsonGenerator g, String field, Optional<String> v) throws IOException {
        if (v.isPresent()) {
            g.writeStringField(field, v.get());
        }
    }

    private static void millis(JsonGenerator g, String field, OptionalLong v, double per) throws IOException {
        if (v.isPresent()) {
            g.writeNumberField(field, per == 1 ? v.getAsLong() : v.getAsLong() / per);
        }
    }
}
