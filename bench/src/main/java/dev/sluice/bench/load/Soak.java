package dev.sluice.bench.load;

import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.redis.FailoverConfig;
import dev.sluice.store.redis.FailoverQuotaStore;
import dev.sluice.store.redis.FailurePolicy;
import dev.sluice.store.redis.RedisQuotaStore;
import dev.sluice.store.redis.RedisStoreConfig;
import dev.sluice.time.NanoClock;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A soak: the gateway in this JVM on the Redis store (or in memory) in front of the fake upstream,
 * at a steady {@code --rate} (half streamed, half whole answers) for {@code --minutes}, bounded in
 * requests in flight ({@value #MAX_IN_FLIGHT}; beyond it a send is skipped and counted). Every
 * {@code --sample-seconds} (the first after a warm-up of up to 30 s) it prints the heap in use, the heap left after a full GC, the open file
 * descriptors, the live threads and the requests so far; at the end, the first and last samples'
 * differences. Loopback only; Redis under a namespace of its own.
 *
 * <pre>
 * java -Xmx1g -cp bench/target/benchmarks.jar dev.sluice.bench.load.Soak --minutes 60 --rate 200 --store redis
 * </pre>
 */
public final class Soak {

    static final int MAX_IN_FLIGHT = 1_000;
    private static final String KEY = "sk-soak-0001";

    /** One look at the process. */
    public record Sample(double minutes, long heapInUse, long heapAfterGc, long openFds, int threads, long answered,
            long ok, long skipped, long gatewayInFlight) {}

    /** What a run saw: its samples, its answers by status, requests that failed without one. */
    public record Result(List<Sample> samples, Map<Integer, Long> statuses, long failed, long skipped, boolean balanced) {

        public Sample first() {
            return samples.get(0);
        }

        public Sample last() {
            return samples.get(samples.size() - 1);
        }
    }

    private Soak() {}

    public static void main(String[] args) throws Exception {
        double minutes = 60;
        int rate = 200;
        int sampleSeconds = 60;
        String store = "redis";
        String redisUri = "redis://127.0.0.1:6379";
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--minutes" -> minutes = Double.parseDouble(args[i + 1]);
                case "--rate" -> rate = Integer.parseInt(args[i + 1]);
                case "--sample-seconds" -> sampleSeconds = Integer.parseInt(args[i + 1]);
                case "--store" -> store = args[i + 1];
                case "--redis-uri" -> redisUri = args[i + 1];
                default -> throw new IllegalArgumentException(args[i] + ": unknown option (expected --minutes, --rate, "
                        + "--sample-seconds, --store memory|redis, --redis-uri)");
            }
        }
        Result r = run(Duration.ofMillis((long) (minutes * 60_000)), rate, Duration.ofSeconds(sampleSeconds),
                store.equals("redis") ? Optional.of(redisUri) : Optional.empty(), System.out);
        System.exit(r.failed() == 0 && r.balanced() ? 0 : 1);
    }

    /**
     * Runs the soak for {@code length} at {@code rate} requests a second, sampling every
     * {@code every}, on Redis at {@code redisUri} when given (else the in-memory store), printing
     * each sample to {@code out}.
     */
    public static Result run(Duration length, int rate, Duration every, Optional<String> redisUri, PrintStream out)
            throws Exception {
        if (rate < 1 || rate > 5_000 || length.isNegative() || length.compareTo(Duration.ofHours(2)) > 0) {
            throw new IllegalArgumentException("rate 1..5000 a second, length up to two hours");
        }
        Vertx upstreamVertx = Vertx.vertx();
        Vertx clientVertx = Vertx.vertx();
        FakeUpstream upstream = await(FakeUpstream.start(upstreamVertx, 1));
        SluiceConfig config = ConfigLoader.parse("""
                server: { host: 127.0.0.1, port: 0, upstream_timeout: 30s }
                store: { kind: %s }
                ledger: { kind: off }
                deployments:
                  up: { kind: openai-compatible, base_url: "%s", limits: { rpm: 1000000000, tpm: 1000000000000, concurrency: 100000 } }
                profiles:
                  soak: { deployment: up, model: gpt-4o-mini, tokenizer: o200k_base }
                orgs:
                  o: { tenants: { t: { limits: { rpm: 1000000000 }, teams: { x: { keys: { k: { secret: "%s" } } } } } } }
                """.formatted(redisUri.isPresent() ? "redis" : "memory", upstream.baseUrl(), KEY), "soak.yaml", v -> null);
        Optional<RedisQuotaStore> redis = redisUri.map(u -> RedisQuotaStore.connect(u,
                RedisStoreConfig.builder().namespace("soak-" + UUID.randomUUID()).dailyResetZone(ZoneOffset.UTC).build()));
        Gateway.Builder b = Gateway.builder(config);
        redis.ifPresent(s -> b.store(new FailoverQuotaStore(s, new FailoverConfig(FailurePolicy.FAIL_CLOSED,
                Map.of(), FailoverConfig.DEFAULT_RETRY_AFTER, ZoneOffset.UTC), NanoClock.system(), () -> 1)));
        Gateway gateway = await(b.start());
        HttpClient client = clientVertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(gateway.port()).setKeepAlive(true), new PoolOptions().setHttp1MaxSize(64));
        Map<Integer, Long> statuses = new java.util.concurrent.ConcurrentSkipListMap<>();
        AtomicLong inFlight = new AtomicLong();
        AtomicLong answered = new AtomicLong();
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong skipped = new AtomicLong();
        List<Sample> samples = new ArrayList<>();
        long start = System.nanoTime();
        long end = start + length.toNanos();
        long[] due = {start};
        long periodNanos = 1_000_000_000L / rate;
        long[] n = {0};
        String[] firstError = {null};
        // Every millisecond, sends what the steady rate owes since the last tick.
        long timer = clientVertx.setPeriodic(1, id -> {
            long now = System.nanoTime();
            while (due[0] <= now && due[0] < end) {
                due[0] += periodNanos;
                if (inFlight.get() >= MAX_IN_FLIGHT) {
                    skipped.incrementAndGet();
                    continue;
                }
                boolean stream = (n[0]++ & 1) == 0;
                inFlight.incrementAndGet();
                client.request(HttpMethod.POST, FakeUpstream.PATH)
                        .compose(req -> req.putHeader("authorization", "Bearer " + KEY)
                                .putHeader("content-type", "application/json")
                                .send("{\"model\":\"soak\",\"stream\":" + stream
                                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}"))
                        .compose(resp -> resp.body().map(body -> {
                            if (resp.statusCode() != 200 && firstError[0] == null) {
                                firstError[0] = resp.statusCode() + " " + body.toString().substring(0,
                                        Math.min(300, body.length()));
                            }
                            return resp.statusCode();
                        }))
                        .onComplete(res -> {
                            inFlight.decrementAndGet();
                            if (res.succeeded()) {
                                answered.incrementAndGet();
                                statuses.merge(res.result(), 1L, Long::sum);
                                if (res.result() == 200) {
                                    ok.incrementAndGet();
                                }
                            } else {
                                failed.incrementAndGet();
                            }
                        });
            }
        });
        out.printf(Locale.ROOT, "soak: %s at %d requests a second (half streamed), %s store, -Xmx %d MiB%n", length, rate,
                redisUri.isPresent() ? "Redis" : "in-memory", Runtime.getRuntime().maxMemory() >> 20);
        out.println("minute  heap in use MiB  heap after GC MiB  open fds  threads  answered  200s  skipped  in flight");
        try {
            // The first sample after a warm-up (connections opened, code compiled, pools filled), the base of the diffs.
            long warm = start + Math.min(every.toNanos(), Math.min(TimeUnit.SECONDS.toNanos(30), length.toNanos() / 4));
            while (System.nanoTime() < warm) {
                Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(warm - System.nanoTime())));
            }
            samples.add(sample(start, answered, ok, skipped, gateway, out));
            while (System.nanoTime() < end) {
                long next = Math.min(end, System.nanoTime() + every.toNanos());
                while (System.nanoTime() < next) {
                    Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(next - System.nanoTime())));
                }
                samples.add(sample(start, answered, ok, skipped, gateway, out));
            }
            clientVertx.cancelTimer(timer);
            long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((inFlight.get() > 0 || !gateway.counters().balanced()) && System.nanoTime() < drainUntil) {
                Thread.sleep(10);
            }
            samples.add(sample(start, answered, ok, skipped, gateway, out));
        } finally {
            clientVertx.cancelTimer(timer);
        }
        boolean balanced = gateway.counters().balanced() && gateway.counters().duplicateAnswers() == 0;
        Result result = new Result(List.copyOf(samples), Map.copyOf(statuses), failed.get(), skipped.get(), balanced);
        Sample f = result.first();
        Sample l = result.last();
        if (firstError[0] != null) {
            out.println("first answer other than 200: " + firstError[0]);
        }
        out.printf(Locale.ROOT, "statuses %s, failed %d, skipped %d, balanced %s; from first to last sample: heap after GC "
                + "%+d MiB, open fds %+d, threads %+d%n", statuses, failed.get(), skipped.get(), balanced,
                (l.heapAfterGc() - f.heapAfterGc()) >> 20, l.openFds() - f.openFds(), l.threads() - f.threads());
        await(client.close());
        await(gateway.stop());
        redis.ifPresent(RedisQuotaStore::close);
        await(upstream.close());
        await(clientVertx.close());
        await(upstreamVertx.close());
        return result;
    }

    private static Sample sample(long start, AtomicLong answered, AtomicLong ok, AtomicLong skipped, Gateway gateway,
            PrintStream out) {
        long inUse = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.gc();
        long afterGc = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long fds = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u
                ? u.getOpenFileDescriptorCount() : -1;
        Sample s = new Sample((System.nanoTime() - start) / 60e9, inUse, afterGc, fds,
                ManagementFactory.getThreadMXBean().getThreadCount(), answered.get(), ok.get(), skipped.get(),
                gateway.counters().inFlight());
        out.printf(Locale.ROOT, "%6.1f  %15d  %17d  %8d  %7d  %8d  %8d  %7d  %9d%n", s.minutes(), s.heapInUse() >> 20,
                s.heapAfterGc() >> 20, s.openFds(), s.threads(), s.answered(), s.ok(), s.skipped(), s.gatewayInFlight());
        return s;
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
