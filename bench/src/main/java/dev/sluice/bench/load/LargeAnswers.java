package dev.sluice.bench.load;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Heap under many large non-streamed answers at once (issue 17 item 4): {@code --answers} clients
 * (1,000 by default) each ask the gateway, at the same moment, for a non-streamed chat answer of
 * {@code --answer-bytes} (1 MiB by default) from a local upstream, and read it to its end without
 * keeping it. The upstream serves one shared buffer and the clients discard what they read, so the
 * heap that grows is the gateway's. Reports the heap before (after a full GC), the highest heap in
 * use sampled every 5 ms (garbage included), the highest heap left live after any collection during
 * the round (what was really held), and the heap after (after a full GC). One JVM, loopback only,
 * bounded by {@code --rounds}.
 *
 * <pre>
 * java -Xmx4g -cp bench/target/benchmarks.jar dev.sluice.bench.load.LargeAnswers --answers 1000 --answer-bytes 1048576
 * </pre>
 *
 * {@code --kind anthropic} puts an Anthropic deployment behind the OpenAI route, so each answer is
 * translated (held whole, as a tree) instead of passed through. The upstream writes each answer in
 * 64 KiB slices as its connection takes them ({@code --upstream paced}, the default: what it holds
 * is bounded, as a provider's socket is), or all at once ({@code --upstream whole}: its own queue
 * then holds what the gateway has not read yet, in this JVM's heap).
 */
public final class LargeAnswers {

    private static final String KEY = "sk-large-answers-0001";

    private LargeAnswers() {}

    public static void main(String[] args) throws Exception {
        int answers = 1_000;
        int bytes = 1 << 20;
        int rounds = 2;
        String kind = "openai";
        boolean paced = true;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--answers" -> answers = Integer.parseInt(args[i + 1]);
                case "--answer-bytes" -> bytes = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--kind" -> kind = args[i + 1];
                case "--upstream" -> paced = switch (args[i + 1]) {
                    case "paced" -> true;
                    case "whole" -> false;
                    default -> throw new IllegalArgumentException("--upstream paced|whole");
                };
                default -> throw new IllegalArgumentException(args[i] + ": unknown option (expected --answers, "
                        + "--answer-bytes, --rounds, --kind openai|anthropic, --upstream paced|whole)");
            }
        }
        if (answers < 1 || answers > 5_000 || bytes < 1_024 || rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("--answers 1..5000, --answer-bytes >= 1024, --rounds 1..20");
        }
        Vertx upstreamVertx = Vertx.vertx();
        Vertx clientVertx = Vertx.vertx();
        Buffer answer = Buffer.buffer(answer(kind, bytes));
        boolean pacedWrites = paced;
        HttpServer upstream = await(upstreamVertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                .requestHandler(req -> req.body().onSuccess(b -> {
                    var resp = req.response().putHeader("content-type", "application/json");
                    if (pacedWrites) {
                        resp.putHeader("content-length", Integer.toString(answer.length()));
                        writeFrom(resp, answer, 0);
                    } else {
                        resp.end(answer);
                    }
                })).listen(0));
        SluiceConfig config = ConfigLoader.parse("""
                server: { host: 127.0.0.1, port: 0, upstream_timeout: 120s, max_connections: 20000,
                          max_connections_per_address: 20000, max_answer_bytes: %d,
                          translation_wait: 120s }
                ledger: { kind: off }
                deployments:
                  up: { kind: %s, base_url: "http://127.0.0.1:%d", limits: { rpm: 1000000000, concurrency: 1000000 } }
                profiles:
                  big: { deployment: up, model: %s }
                orgs:
                  o: { tenants: { t: { teams: { x: { keys: { k: { secret: "%s" } } } } } } }
                """.formatted(Math.max(64L << 20, 2L * bytes), kind.equals("anthropic") ? "anthropic" : "openai-compatible",
                upstream.actualPort(), kind.equals("anthropic") ? "claude-sonnet-4" : "gpt-4o-mini", KEY),
                "large-answers.yaml", v -> null);
        Gateway gateway = await(Gateway.builder(config).start());
        HttpClient client = clientVertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(gateway.port()).setKeepAlive(true), new PoolOptions().setHttp1MaxSize(answers));
        String body = "{\"model\":\"big\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}";
        LiveAfterGc live = new LiveAfterGc();
        System.out.printf(Locale.ROOT, "%d answers of %,d bytes at once (%s, upstream writes %s), %d rounds, -Xmx %d MiB%n",
                answers, bytes, kind.equals("anthropic") ? "translated from Anthropic" : "native", paced ? "paced" : "whole",
                rounds,
                Runtime.getRuntime().maxMemory() >> 20);
        try {
            round(client, body, Math.min(answers, 50)); // warm-up: connections, JIT, tokenizer
            for (int r = 1; r <= rounds; r++) {
                long before = heapAfterGc();
                live.reset();
                Sampler sampler = new Sampler();
                sampler.start();
                long start = System.nanoTime();
                int[] outcome = round(client, body, answers);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                sampler.stop();
                long after = heapAfterGc();
                System.out.printf(Locale.ROOT, "round %d: %d x 200, %d other, %d failed, %,d ms; heap before %d MiB, "
                        + "peak in use %d MiB, peak live after a GC %d MiB, after %d MiB; gateway in flight %d, "
                        + "held for translation %d bytes%n", r,
                        outcome[0], outcome[1], outcome[2], millis, before >> 20, sampler.peak() >> 20,
                        live.peak() >> 20, after >> 20, gateway.counters().inFlight(), gateway.translationBytesHeld());
            }
        } finally {
            live.close();
            await(client.close());
            await(gateway.stop());
            await(upstream.close());
            await(clientVertx.close());
            await(upstreamVertx.close());
        }
    }

    /**
     * Writes {@code answer} from {@code from} in 64 KiB slices of the one shared buffer, waiting
     * whenever the connection's queue is full, as a provider's socket would: the upstream then
     * holds little of any answer, and the heap that grows is the gateway's.
     */
    private static void writeFrom(io.vertx.core.http.HttpServerResponse resp, Buffer answer, int from) {
        int at = from;
        while (at < answer.length() && !resp.writeQueueFull()) {
            int to = Math.min(answer.length(), at + 65_536);
            resp.write(answer.slice(at, to));
            at = to;
        }
        if (at >= answer.length()) {
            resp.end();
        } else {
            int next = at;
            resp.drainHandler(v -> writeFrom(resp, answer, next));
        }
    }

    /** Sends {@code n} requests at once and waits for all: 200s, other statuses, failures. */
    private static int[] round(HttpClient client, String body, int n) throws Exception {
        AtomicLong ok = new AtomicLong();
        AtomicLong other = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        List<Future<Void>> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            all.add(client.request(HttpMethod.POST, "/v1/chat/completions")
                    .compose(req -> req.putHeader("authorization", "Bearer " + KEY)
                            .putHeader("content-type", "application/json").send(body))
                    .compose(resp -> {
                        resp.handler(chunk -> { }); // read and dropped: the client holds nothing
                        (resp.statusCode() == 200 ? ok : other).incrementAndGet();
                        return resp.end();
                    })
                    .onFailure(e -> failed.incrementAndGet())
                    .otherwiseEmpty());
        }
        Future.join(all).toCompletionStage().toCompletableFuture().get(300, TimeUnit.SECONDS);
        return new int[] {(int) ok.get(), (int) other.get(), (int) failed.get()};
    }

    /** A non-streamed chat answer of about {@code bytes} bytes in the provider's format, its text filler. */
    static byte[] answer(String kind, int bytes) {
        String text = "x".repeat(Math.max(1, bytes - 400));
        String json = kind.equals("anthropic")
                ? "{\"id\":\"msg_large\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4\","
                        + "\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}],\"stop_reason\":\"end_turn\","
                        + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":9,\"output_tokens\":100}}"
                : "{\"id\":\"chatcmpl-large\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":\"gpt-4o-mini\","
                        + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + text + "\"},"
                        + "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":100,"
                        + "\"total_tokens\":109}}";
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    /** The highest heap in use, sampled every 5 ms on its own thread. */
    static final class Sampler {
        private final AtomicLong peak = new AtomicLong();
        private volatile boolean running = true;
        private final Thread thread = Thread.ofPlatform().daemon().name("heap-sampler").unstarted(() -> {
            while (running) {
                peak.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }

        long peak() {
            return peak.get();
        }
    }

    /** The highest heap left in use after any collection: what was live, not garbage waiting. */
    static final class LiveAfterGc implements AutoCloseable {
        private final AtomicLong peak = new AtomicLong();
        private final List<Runnable> removals = new ArrayList<>();
        private final java.util.Set<String> heapPools = new java.util.HashSet<>();

        LiveAfterGc() {
            for (var pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == java.lang.management.MemoryType.HEAP) {
                    heapPools.add(pool.getName());
                }
            }
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter emitter) {
                    javax.management.NotificationListener l = (n, h) -> {
                        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                            return;
                        }
                        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                        long used = 0;
                        for (var e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                            if (heapPools.contains(e.getKey())) {
                                used += e.getValue().getUsed();
                            }
                        }
                        peak.accumulateAndGet(used, Math::max);
                    };
                    emitter.addNotificationListener(l, null, null);
                    removals.add(() -> {
                        try {
                            emitter.removeNotificationListener(l);
                        } catch (javax.management.ListenerNotFoundException e) {
                            // already gone
                        }
                    });
                }
            }
        }

        void reset() {
            peak.set(0);
        }

        long peak() {
            return peak.get();
        }

        @Override
        public void close() {
            removals.forEach(Runnable::run);
        }
    }
}
