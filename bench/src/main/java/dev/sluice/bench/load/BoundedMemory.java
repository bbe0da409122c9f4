package dev.sluice.bench.load;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounded memory, measured (issue 17 item 4): the gateway in a child JVM of a fixed heap
 * ({@code --xmx}, 512m by default, {@code -XX:+ExitOnOutOfMemoryError}), a loopback provider in this
 * JVM answering every call with a non-streamed answer of {@code --answer-bytes} (1 MiB by default,
 * in 64 KiB slices spread over {@code --answer-seconds}, 5, and no faster than the connection takes
 * them), and {@code --answers} clients (1,000) sending
 * at the same moment on the OpenAI route: every other one to an Anthropic deployment (the answer
 * read whole and translated, within {@code server.translation_budget_bytes}) and the rest to an
 * OpenAI-compatible one (passed on as it arrives). Reports the answers by status, the requests that
 * got none, the child's peak heap in use, peak heap left after a collection and peak resident set
 * ({@code VmHWM}), and whether it ended balanced and alive. One round, loopback only, bounded by
 * {@code --seconds} (120). {@code --translation-budget-bytes} replaces the default budget (128 MiB),
 * to see what the bound is worth.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.sluice.bench.load.BoundedMemory --answers 1000 --answer-bytes 1048576 --xmx 512m
 * </pre>
 */
public final class BoundedMemory {

    private static final String KEY = "sk-bounded-memory-0001";
    /** What a 503 for want of translation room says; documented in docs/CONFIG.md ({@code server.translation_wait}). */
    static final String BUDGET_EXHAUSTED = "translation_budget_exhausted";
    /** The provider's write size. */
    static final int SLICE = 64 << 10;

    /**
     * What a run saw. {@code statuses} counts answers by status and route ({@code 200 translated});
     * {@code unanswered}, requests that ended without a whole answer (a connection error, a body cut
     * short); {@code unexpected}, answers that are neither a whole 200 nor a 503 for want of room.
     */
    public record Result(Map<String, Long> statuses, long unanswered, long unexpected, long heapPeak, long livePeak,
            long heapMax, long rssPeak, long inFlightAfter, long heldAfter, long duplicates, boolean balanced,
            boolean childAlive, boolean outOfMemory, long millis) {

        long answered() {
            return statuses.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private BoundedMemory() {}

    public static void main(String[] args) throws Exception {
        int answers = 1_000;
        int bytes = 1 << 20;
        String xmx = "512m";
        int answerSeconds = 5;
        int seconds = 120;
        long budget = 0;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--answers" -> answers = Integer.parseInt(args[i + 1]);
                case "--answer-bytes" -> bytes = Integer.parseInt(args[i + 1]);
                case "--xmx" -> xmx = args[i + 1];
                case "--answer-seconds" -> answerSeconds = Integer.parseInt(args[i + 1]);
                case "--translation-budget-bytes" -> budget = Long.parseLong(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException(args[i] + ": unknown option (expected --answers, "
                        + "--answer-bytes, --xmx, --answer-seconds, --translation-budget-bytes, --seconds)");
            }
        }
        Result r = run(answers, bytes, xmx, answerSeconds, budget, seconds, System.out);
        System.exit(r.unanswered() == 0 && r.unexpected() == 0 && r.childAlive() && !r.outOfMemory() ? 0 : 1);
    }

    /**
     * One round of {@code answers} at once; what it printed goes to {@code out}. {@code budget} sets
     * {@code server.translation_budget_bytes} (0: the default), to see what the bound is worth.
     */
    public static Result run(int answers, int bytes, String xmx, int answerSeconds, long budget, int seconds,
            PrintStream out) throws Exception {
        if (answers < 1 || answers > 5_000 || bytes < 1_024 || answerSeconds < 0 || seconds < 10) {
            throw new IllegalArgumentException("--answers 1..5000, --answer-bytes >= 1024, --answer-seconds >= 0, "
                    + "--seconds >= 10");
        }
        long sliceMillis = Math.max(1, TimeUnit.SECONDS.toMillis(answerSeconds) / ((bytes + SLICE - 1) / SLICE));
        Vertx vertx = Vertx.vertx();
        Path dir = Files.createTempDirectory("bounded-memory");
        Process child = null;
        try {
            Buffer anthropic = Buffer.buffer(LargeAnswers.answer("anthropic", bytes));
            Buffer openai = Buffer.buffer(LargeAnswers.answer("openai", bytes));
            HttpServer provider = await(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                    .requestHandler(req -> req.body().onSuccess(b -> {
                        Buffer answer = req.path().endsWith("/messages") ? anthropic : openai;
                        writePaced(vertx, req.response().putHeader("content-type", "application/json")
                                .putHeader("content-length", Integer.toString(answer.length())), answer, 0, sliceMillis);
                    })).listen(0), 10);
            Path config = dir.resolve("bounded-memory.yaml");
            // Defaults for everything the bound depends on (translation budget and wait, answer cap), limits
            // high enough that the governor admits every call: what is measured is the gateway's memory.
            Files.writeString(config, """
                    server: { host: 127.0.0.1, port: 0, max_connections_per_address: 20000%3$s }
                    ledger: { kind: off }
                    deployments:
                      anthropic: { kind: anthropic, base_url: "http://127.0.0.1:%1$d", limits: { rpm: 1000000000, concurrency: 1000000 } }
                      openai: { kind: openai-compatible, base_url: "http://127.0.0.1:%1$d", limits: { rpm: 1000000000, concurrency: 1000000 } }
                    profiles:
                      translated: { deployment: anthropic, model: claude-sonnet-4 }
                      relayed: { deployment: openai, model: gpt-4o-mini }
                    orgs:
                      o: { tenants: { t: { teams: { x: { keys: { k: { secret: "%2$s" } } } } } } }
                    """.formatted(provider.actualPort(), KEY, budget > 0 ? ", translation_budget_bytes: " + budget : ""));
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            child = new ProcessBuilder(java, "-Xmx" + xmx, "-XX:+ExitOnOutOfMemoryError", "-cp",
                    System.getProperty("java.class.path"), HeldAnswersGateway.class.getName(), "--config", config.toString())
                    .redirectErrorStream(true).start();
            Child gateway = new Child(child);
            int port = Integer.parseInt(gateway.await("port ", 60).substring(5).trim());

            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1")
                    .setDefaultPort(port).setKeepAlive(true).setConnectTimeout(30_000),
                    new PoolOptions().setHttp1MaxSize(answers).setMaxWaitQueueSize(-1));
            Map<String, AtomicLong> statuses = new ConcurrentHashMap<>();
            AtomicLong unanswered = new AtomicLong();
            AtomicLong unexpected = new AtomicLong();
            out.printf(Locale.ROOT, "%d answers of %,d bytes at once, half translated from Anthropic, half passed on; "
                    + "gateway -Xmx%s, translation budget %s%n", answers, bytes, xmx,
                    budget > 0 ? budget + " bytes" : "default");
            long start = System.nanoTime();
            List<Future<Void>> all = new ArrayList<>(answers);
            for (int i = 0; i < answers; i++) {
                String profile = i % 2 == 0 ? "translated" : "relayed";
                String body = "{\"model\":\"" + profile + "\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\","
                        + "\"content\":\"Hello\"}]}";
                all.add(client.request(HttpMethod.POST, "/v1/chat/completions")
                        .compose(req -> req.putHeader("authorization", "Bearer " + KEY)
                                .putHeader("content-type", "application/json").send(body))
                        .compose(resp -> {
                            AtomicLong read = new AtomicLong();
                            Buffer head = Buffer.buffer();
                            resp.handler(chunk -> {
                                read.addAndGet(chunk.length());
                                if (head.length() < 4_096) {
                                    head.appendBuffer(chunk.slice(0, Math.min(chunk.length(), 4_096 - head.length())));
                                }
                            });
                            return resp.end().map(v -> {
                                int status = resp.statusCode();
                                statuses.computeIfAbsent(status + " " + profile, k -> new AtomicLong()).incrementAndGet();
                                boolean whole = status == 200 && read.get() >= bytes - 1_024;
                                boolean noRoom = status == 503 && profile.equals("translated")
                                        && head.toString(StandardCharsets.UTF_8).contains(BUDGET_EXHAUSTED);
                                if (!whole && !noRoom) {
                                    unexpected.incrementAndGet();
                                    out.printf(Locale.ROOT, "unexpected: %d on %s, %,d bytes: %s%n", status, profile,
                                            read.get(), head.toString(StandardCharsets.UTF_8));
                                }
                                return (Void) null;
                            });
                        })
                        .onFailure(e -> unanswered.incrementAndGet())
                        .otherwiseEmpty());
            }
            try {
                Future.join(all).toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                out.printf(Locale.ROOT, "not all answered within %d s%n", seconds);
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long notDone = all.stream().filter(f -> !f.isComplete()).count();
            await(client.close(), 10);
            boolean alive = child.isAlive();
            long rss = alive ? rssPeak(child.pid()) : -1;
            Map<String, Long> stats = alive ? gateway.stats() : Map.of();
            Map<String, Long> counted = new TreeMap<>();
            statuses.forEach((k, v) -> counted.put(k, v.get()));
            Result r = new Result(counted, unanswered.get() + notDone, unexpected.get(), stats.getOrDefault("heap_peak", -1L),
                    stats.getOrDefault("live_peak", -1L), stats.getOrDefault("heap_max", -1L), rss,
                    stats.getOrDefault("in_flight", -1L), stats.getOrDefault("held", -1L),
                    stats.getOrDefault("duplicates", -1L), stats.getOrDefault("balanced", 0L) == 1, alive,
                    gateway.log().contains("OutOfMemoryError"), millis);
            out.printf(Locale.ROOT, "answers %s, %d unanswered, %d unexpected, %,d ms%n", r.statuses(), r.unanswered(),
                    r.unexpected(), r.millis());
            out.printf(Locale.ROOT, "gateway: alive %b, out of memory %b, heap max %d MiB, peak in use %d MiB, peak live "
                    + "after a GC %d MiB, peak RSS %d MiB; after: in flight %d, held for translation %d bytes, "
                    + "duplicate answers %d, balanced %b%n", r.childAlive(), r.outOfMemory(), r.heapMax() >> 20,
                    r.heapPeak() >> 20, r.livePeak() >> 20, r.rssPeak() >> 20, r.inFlightAfter(), r.heldAfter(),
                    r.duplicates(), r.balanced());
            return r;
        } finally {
            if (child != null) {
                child.getOutputStream().close();
                if (!child.waitFor(30, TimeUnit.SECONDS)) {
                    child.destroyForcibly();
                }
            }
            await(vertx.close(), 10);
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }

    /**
     * Writes {@code answer} from {@code from} in slices of {@value #SLICE} bytes of the one shared
     * buffer, a slice every {@code sliceMillis}, and no faster than the connection takes them: as a
     * provider that produces a large answer over a few seconds. The answers of all the calls are then
     * under way at once, which is what would fill a gateway that held each whole without a bound.
     */
    private static void writePaced(Vertx vertx, io.vertx.core.http.HttpServerResponse resp, Buffer answer, int from,
            long sliceMillis) {
        int to = Math.min(answer.length(), from + SLICE);
        if (to == answer.length()) {
            resp.end(answer.slice(from, to));
            return;
        }
        resp.write(answer.slice(from, to));
        Runnable next = () -> vertx.setTimer(sliceMillis, id -> writePaced(vertx, resp, answer, to, sliceMillis));
        if (resp.writeQueueFull()) {
            resp.drainHandler(v -> next.run());
        } else {
            next.run();
        }
    }

    /** The peak resident set of process {@code pid} so far ({@code VmHWM}), in bytes; -1 where unknown. */
    static long rssPeak(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1_024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux, or gone
        }
        return -1;
    }

    private static <T> T await(Future<T> f, int seconds) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
    }

    /** The gateway process's output, read on a thread of its own; its input, for {@code stats}. */
    private static final class Child {
        private final Process process;
        private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuffer log = new StringBuffer();

        Child(Process process) {
            this.process = process;
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            Thread.ofPlatform().daemon().name("gateway-output").start(() -> out.lines().forEach(l -> {
                log.append(l).append('\n');
                lines.add(l);
            }));
        }

        /** The first line starting with {@code prefix} within {@code seconds}. */
        String await(String prefix, int seconds) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                String l = lines.poll(left, TimeUnit.NANOSECONDS);
                if (l != null && l.startsWith(prefix)) {
                    return l;
                }
            }
            throw new IllegalStateException("the gateway did not print '" + prefix + "' within " + seconds + " s:\n" + log);
        }

        /** Its {@code stats} line, as numbers (true as 1). */
        Map<String, Long> stats() throws IOException, InterruptedException {
            OutputStream in = process.getOutputStream();
            in.write("stats\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            Map<String, Long> m = new TreeMap<>();
            for (String kv : await("stats ", 10).substring(6).split(" ")) {
                String[] p = kv.split("=", 2);
                m.put(p[0], p[1].equals("true") ? 1L : p[1].equals("false") ? 0L : Long.parseLong(p[1]));
            }
            return m;
        }

        String log() {
            return log.toString();
        }
    }
}
