package dev.sluice.bench.load;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Sends chat completion requests over a fixed pool of HTTP/1.1 keep-alive connections and
 * measures the answers. Closed loop: each connection sends its next request when the previous
 * answer has fully arrived. Open loop: requests are due on a fixed, evenly spaced schedule and their
 * latency is counted from the time they were due, so a slow server cannot hide its queue (no
 * coordinated omission); when a second's worth of requests (at least twice the connections)
 * already waits, a due request is skipped and counted as missed. The work is split over one
 * verticle per event loop used.
 *
 * <p>A pacing thread per verticle wakes at each due time and hands the send to the event loop.
 * Vert.x timers tick in whole milliseconds: sending on such a tick would add up to a millisecond
 * of the generator's own lateness to every answer, and would send each millisecond's requests as
 * one burst, so that a proxy's queueing inside the burst, not its own latency, would be measured.
 */
public final class LoadGenerator {

    /** After the measuring time, how long requests still in flight may take before they count as errors. */
    static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Numbers for distinct prompts, shared by every verticle so that no two requests repeat one. */
    private static final AtomicLong PROMPT_NUMBERS = new AtomicLong();

    private LoadGenerator() {}

    /** The prompt: a short instruction, padded with ordinary English text to {@code promptChars} characters. */
    static String prompt(int promptChars) {
        String base = "Say hello to the benchmark.";
        StringBuilder b = new StringBuilder(base);
        String filler = " The quick brown fox jumps over the lazy dog while the gateway counts every token it sees.";
        while (b.length() < promptChars) {
            b.append(filler, 0, Math.min(filler.length(), promptChars - b.length()));
        }
        return b.toString();
    }

    /** The request body sent for {@code streaming} or not: compact JSON naming the model "bench". */
    public static String requestBody(boolean streaming, int promptChars) {
        return requestBody(streaming, prompt(promptChars));
    }

    private static String requestBody(boolean streaming, String prompt) {
        String common = "{\"model\":\"bench\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt
                + "\"}],\"max_tokens\":16";
        return streaming ? common + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}" : common + "}";
    }

    /** Runs {@code spec} on up to {@code eventLoops} of {@code vertx}'s event loops. */
    public static Future<LoadResult> run(Vertx vertx, LoadSpec spec, int eventLoops) {
        int workers = Math.max(1, Math.min(eventLoops, spec.connections()));
        long start = System.nanoTime();
        List<Worker> all = new ArrayList<>();
        List<Future<String>> deployed = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            int conns = spec.connections() / workers + (i < spec.connections() % workers ? 1 : 0);
            long max = spec.maxRequests() / workers + (i < spec.maxRequests() % workers ? 1 : 0);
            Worker w = new Worker(spec, start, conns, spec.rate() / workers, Math.max(1, max));
            all.add(w);
            deployed.add(vertx.deployVerticle(w));
        }
        return Future.all(deployed)
                .compose(v -> Future.all(all.stream().map(w -> w.done.future()).toList()))
                .map(v -> merge(spec, all))
                .eventually(() -> Future.all(deployed.stream().map(d -> d.compose(vertx::undeploy)).toList()));
    }

    private static LoadResult merge(LoadSpec spec, List<Worker> workers) {
        Histogram h = new Histogram(3);
        long completed = 0;
        long errors = 0;
        long missed = 0;
        long last = 0;
        long measureStart = workers.getFirst().measureStart;
        Optional<String> firstError = Optional.empty();
        for (Worker w : workers) {
            h.add(w.histogram);
            completed += w.completed;
            errors += w.errors;
            missed += w.missed;
            last = Math.max(last, w.lastAnswer);
            if (firstError.isEmpty()) {
                firstError = w.firstError;
            }
        }
        // The run lasts from the end of the warm-up to its last measured answer.
        double seconds = completed == 0 ? 0 : Math.max(1, last - measureStart) / 1e9;
        return new LoadResult(spec, completed, errors, missed, seconds, h.getValueAtPercentile(50),
                h.getValueAtPercentile(99), h.getMaxValue(), firstError, OptionalDouble.empty(), OptionalDouble.empty());
    }

    /** One event loop's share of the connections, the rate and the request budget. */
    private static final class Worker extends VerticleBase {
        final Promise<Void> done = Promise.promise();
        final Histogram histogram = new Histogram(3);
        final long measureStart;
        final long measureEnd;
        private final LoadSpec spec;
        private final int connections;
        private final double rate;
        private final long maxRequests;
        private final long backlog;
        private final long start;
        private final Buffer body;
        private final String prompt;
        private final RequestOptions options;
        private HttpClient client;
        private long sent;
        private int inFlight;
        private long measuredInFlight;
        private boolean stopped;
        private volatile boolean pacing;
        private long drainTimer = -1;
        long completed;
        long errors;
        long missed;
        long lastAnswer;
        Optional<String> firstError = Optional.empty();

        Worker(LoadSpec spec, long start, int connections, double rate, long maxRequests) {
            this.spec = spec;
            this.start = start;
            this.connections = connections;
            this.rate = rate;
            this.maxRequests = maxRequests;
            // Up to a second's worth of requests may wait for a connection; beyond that the server is hopelessly behind.
            this.backlog = Math.max(2L * connections, (long) Math.ceil(rate));
            this.measureStart = start + spec.warmup().toNanos();
            this.measureEnd = measureStart + spec.measure().toNanos();
            this.prompt = prompt(spec.promptChars());
            this.body = Buffer.buffer(requestBody(spec.streaming(), prompt));
            this.options = new RequestOptions().setMethod(HttpMethod.POST).setHost(spec.host()).setPort(spec.port())
                    .setURI(FakeUpstream.PATH).putHeader("content-type", "application/json")
                    .putHeader("accept", spec.streaming() ? "text/event-stream" : "application/json");
            if (!spec.apiKey().isEmpty()) {
                options.putHeader("authorization", "Bearer " + spec.apiKey());
            }
        }

        @Override
        public Future<?> start() {
            client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setPipelining(false)
                    .setTcpNoDelay(true).setConnectTimeout(10_000),
                    new PoolOptions().setHttp1MaxSize(connections).setMaxWaitQueueSize(-1));
            if (spec.openLoop()) {
                pacing = true;
                Thread.ofPlatform().daemon().name("load-pacer").start(this::pace);
            } else {
                for (int i = 0; i < connections; i++) {
                    send(System.nanoTime());
                }
            }
            return Future.succeededFuture();
        }

        @Override
        public Future<?> stop() {
            pacing = false;
            return client.close();
        }

        /** Whether another request may start: time is left and the request budget is not spent. */
        private boolean more(long now) {
            return now < measureEnd && completed + measuredInFlight < maxRequests;
        }

        /** Open loop, on the pacing thread: wakes at each due time and has the event loop send what is due. */
        private void pace() {
            double interval = 1e9 / rate;
            for (long k = 1; pacing; k++) {
                long due = start + (long) (k * interval);
                for (long wait = due - System.nanoTime(); wait > 0 && pacing; wait = due - System.nanoTime()) {
                    LockSupport.parkNanos(wait);
                }
                context.runOnContext(v -> schedule());
            }
        }

        /** Open loop: sends every request that is due by now, skipping those with nowhere to go. */
        private void schedule() {
            long now = System.nanoTime();
            if (stopped) {
                return;
            }
            if (!more(now)) {
                endRun();
                return;
            }
            long due = (long) ((now - start) / 1e9 * rate);
            while (sent < due && completed + measuredInFlight < maxRequests) {
                long intended = start + (long) (sent * 1e9 / rate);
                sent++;
                if (inFlight >= backlog) {
                    if (intended >= measureStart) {
                        missed++;
                    }
                    continue;
                }
                send(intended);
            }
        }

        private void send(long intended) {
            inFlight++;
            boolean measured = intended >= measureStart;
            if (measured) {
                measuredInFlight++;
            }
            // The body is asked for in the same step as the response, so its end cannot arrive first.
            client.request(options)
                    .compose(req -> req.send(nextBody()).compose(resp -> resp.body().map(b -> check(resp.statusCode(), b))))
                    .onComplete(ar -> answered(intended, measured, ar.succeeded() ? ar.result()
                            : Optional.of(String.valueOf(ar.cause()))));
        }

        private Buffer nextBody() {
            return spec.distinctPrompts() ? Buffer.buffer(requestBody(spec.streaming(), prompt + " #" + PROMPT_NUMBERS.incrementAndGet()))
                    : body;
        }

        private Optional<String> check(int status, Buffer answer) {
            if (status != 200) {
                String text = answer.toString(StandardCharsets.UTF_8);
                return Optional.of("HTTP " + status + ": " + text.substring(0, Math.min(200, text.length())));
            }
            String text = answer.toString(StandardCharsets.UTF_8);
            boolean whole = spec.streaming() ? text.stripTrailing().endsWith("data: [DONE]") : text.contains("\"usage\"");
            return whole ? Optional.empty() : Optional.of("incomplete answer: " + text.substring(0, Math.min(200, text.length())));
        }

        private void answered(long intended, boolean measured, Optional<String> error) {
            long now = System.nanoTime();
            if (done.future().isComplete()) {
                return; // given up on at the end of the run, and already counted
            }
            inFlight--;
            if (measured) {
                measuredInFlight--;
                completed++;
                lastAnswer = now;
                histogram.recordValue(Math.max(1, (now - intended) / 1000));
                if (error.isPresent()) {
                    errors++;
                    if (firstError.isEmpty()) {
                        firstError = error;
                    }
                }
            }
            if (stopped || spec.openLoop() || !more(now)) {
                if (!spec.openLoop()) {
                    endRun();
                }
                if (stopped && inFlight == 0) {
                    finish();
                }
                return;
            }
            if (error.isPresent()) {
                // A failure can complete at once: go through the event loop so that retries never nest.
                context.runOnContext(v -> send(System.nanoTime()));
            } else {
                send(now);
            }
        }

        private void endRun() {
            if (stopped) {
                return;
            }
            stopped = true;
            pacing = false;
            if (inFlight == 0) {
                finish();
                return;
            }
            drainTimer = vertx.setTimer(Math.max(1, TimeUnit.NANOSECONDS.toMillis(DRAIN_NANOS)), id -> {
                // Answers that never came are errors of the run, not reasons to hang.
                errors += measuredInFlight;
                completed += measuredInFlight;
                if (firstError.isEmpty() && measuredInFlight > 0) {
                    firstError = Optional.of(measuredInFlight + " requests still unanswered "
                            + TimeUnit.NANOSECONDS.toSeconds(DRAIN_NANOS) + " s after the run");
                }
                measuredInFlight = 0;
                finish();
            });
        }

        private void finish() {
            if (drainTimer >= 0) {
                vertx.cancelTimer(drainTimer);
                drainTimer = -1;
            }
            done.tryComplete();
        }
    }
}
