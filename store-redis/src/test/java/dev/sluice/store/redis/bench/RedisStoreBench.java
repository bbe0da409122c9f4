package dev.sluice.store.redis.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.redis.LeasedConfig;
import dev.sluice.store.redis.LeasedQuotaStore;
import dev.sluice.store.redis.OwnRedisServer;
import dev.sluice.store.redis.RedisQuotaStore;
import dev.sluice.store.redis.RedisStoreConfig;
import dev.sluice.store.redis.StoreUnavailableException;
import dev.sluice.time.NanoClock;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;

/**
 * Admit+settle pairs per second and admission latency through the Redis store on loopback.
 * Not part of the test run. Every pair is one reservation over a path of {@code --buckets}
 * buckets (..., key, profile, deployment) followed by its settlement; limits are high enough
 * that every reservation is granted, so each pair is the full write path. All client threads
 * share the store (one connection), as the gateway's worker pool would.
 *
 * <p>The run uses a namespace of its own and deletes it afterwards. Besides client-side figures
 * it prints what Redis spent (from {@code INFO}, as differences over the measured seconds):
 * library calls, operations per call, microseconds per call, and Redis CPU per pair. On the
 * machine's shared Redis those include other clients' calls; {@code --own-redis} starts a
 * redis-server of the bench's own on a free port for clean server-side figures.
 *
 * <pre>
 * java -cp ... dev.sluice.store.redis.bench.RedisStoreBench --mode exact --threads 16 --seconds 10
 * </pre>
 *
 * <p>{@code --fleet-view N} also runs N replicas' fleet views on the namespace meanwhile, each
 * exchanging every 250 ms as {@code sluice serve} does, to measure what the view costs admissions.
 */
public final class RedisStoreBench {

    private RedisStoreBench() {}

    public static void main(String[] args) throws Exception {
        String uri = "redis://127.0.0.1:6379";
        boolean ownRedis = false;
        String mode = "exact";
        int threads = 16;
        int seconds = 10;
        int warmup = 3;
        int buckets = 3;
        int fleetViews = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--uri" -> uri = args[++i];
                case "--own-redis" -> ownRedis = true;
                case "--mode" -> mode = args[++i];
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--buckets" -> buckets = Integer.parseInt(args[++i]);
                case "--fleet-view" -> fleetViews = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option: " + args[i]);
            }
        }
        OwnRedisServer server = null;
        if (ownRedis) {
            server = new OwnRedisServer();
            server.start();
            uri = server.uri();
        }
        String ns = "sluicebench:" + UUID.randomUUID().toString().substring(0, 8);
        RedisClient admin = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> adminConnection = admin.connect()) {
            RedisCommands<String, String> info = adminConnection.sync();
            RedisQuotaStore redis = RedisQuotaStore.connect(uri, RedisStoreConfig.builder().namespace(ns).build());
            QuotaStore store = mode.equals("leased")
                    ? new LeasedQuotaStore(redis, NanoClock.system(), LeasedConfig.defaults())
                    : redis;
            List<AutoCloseable> fleet = new ArrayList<>();
            try {
                BucketPlan[] path = path(buckets);
                if (fleetViews > 0) {
                    fleet = fleetViews(redis, uri, ns, fleetViews);
                }
                long[] amounts = new long[Dimension.COUNT];
                amounts[Dimension.REQUESTS.ordinal()] = 1;
                amounts[Dimension.TOTAL_TOKENS.ordinal()] = 500;
                amounts[Dimension.CONCURRENT_REQUESTS.ordinal()] = 1;
                long[] actual = amounts.clone();
                actual[Dimension.TOTAL_TOKENS.ordinal()] = 420;

                run(store, path, amounts, actual, threads, warmup);
                OperatingSystemMXBean os = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
                double load0 = os.getSystemLoadAverage();
                Map<String, Double> before = serverStats(info);
                long cpu0 = os.getProcessCpuTime();
                Result r = run(store, path, amounts, actual, threads, seconds);
                long cpu1 = os.getProcessCpuTime();
                Map<String, Double> after = serverStats(info);
                double load1 = os.getSystemLoadAverage();
                double calls = after.get("calls") - before.get("calls");
                double usec = after.get("usec") - before.get("usec");
                double redisCpu = after.get("cpu") - before.get("cpu");
                long ops = 2 * r.pairs;
                System.out.printf(Locale.ROOT,
                        "mode=%s threads=%d buckets=%d fleet-views=%d seconds=%d pairs=%d pairs/s=%.0f rejected=%d unavailable=%d%n"
                                + "  admit p50=%.1fus p99=%.1fus p99.9=%.1fus  settle p50=%.1fus p99=%.1fus%n"
                                + "  redis: calls=%.0f ops/call=%.2f usec/call=%.2f usec/op=%.2f cpu/pair=%.1fus"
                                + "  client cpu/pair=%.1fus  load %.2f -> %.2f  (%s)%n",
                        mode, threads, buckets, fleetViews, seconds, r.pairs, r.pairs / (double) seconds, r.rejected, r.unavailable,
                        r.admit.getValueAtPercentile(50) / 1e3, r.admit.getValueAtPercentile(99) / 1e3,
                        r.admit.getValueAtPercentile(99.9) / 1e3, r.settle.getValueAtPercentile(50) / 1e3,
                        r.settle.getValueAtPercentile(99) / 1e3, calls, calls == 0 ? 0 : ops / calls,
                        calls == 0 ? 0 : usec / calls, ops == 0 ? 0 : usec / ops, r.pairs == 0 ? 0 : redisCpu * 1e6 / r.pairs,
                        r.pairs == 0 ? 0 : (cpu1 - cpu0) / 1e3 / r.pairs, load0, load1,
                        ownRedis ? "own redis-server" : uri);
            } finally {
                for (AutoCloseable c : fleet.reversed()) {
                    c.close();
                }
                store.close();
                if (store != redis) {
                    redis.close();
                }
                deleteNamespace(info, ns);
            }
        } finally {
            admin.shutdown();
            if (server != null) {
                server.close();
            }
        }
    }

    /**
     * {@code n} replicas' fleet views on the bench's namespace, as {@code sluice serve} runs them
     * (every 250 ms on a thread of their own): the first over the bench's own store connection,
     * the others on connections of their own. Each publishes the bench deployment with a mode (an
     * adaptive controller on a governor of its own) and queued work of every class, so the calls
     * carry a full line per replica, not an empty publication.
     */
    private static List<AutoCloseable> fleetViews(RedisQuotaStore first, String uri, String ns, int n) {
        List<AutoCloseable> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            RedisQuotaStore store = i == 0 ? first
                    : RedisQuotaStore.connect(uri, RedisStoreConfig.builder().namespace(ns).build());
            if (i > 0) {
                out.add(store);
            }
            Scope dep = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "bench");
            dev.sluice.governor.QuotaGovernor g = new dev.sluice.governor.QuotaGovernor(
                    dev.sluice.governor.GovernorConfig.builder().scope(dep, Limits.of(Limit.of(Dimension.REQUESTS, 60, 1)))
                            .build(),
                    new dev.sluice.store.InMemoryQuotaStore(NanoClock.system(), java.time.ZoneOffset.UTC),
                    NanoClock.system());
            dev.sluice.adapt.AdaptiveController a = dev.sluice.adapt.AdaptiveController.attach("bench",
                    dev.sluice.adapt.AdaptiveConfig.defaults(), g, new java.util.SplittableRandom(i));
            for (dev.sluice.governor.TrafficClass c : dev.sluice.governor.TrafficClass.values()) {
                for (int k = 0; k < 2; k++) {
                    g.admit(new dev.sluice.governor.AdmissionRequest("w" + i + c + k,
                            new dev.sluice.governor.RequestPath("org", "t", "team", "key", "p", "bench"),
                            new dev.sluice.governor.Demand(0, 0, false), c, dev.sluice.governor.AdmissionRequest.NO_DEADLINE));
                }
            }
            out.add(dev.sluice.store.redis.FleetView.start(store, g, d -> java.util.Optional.of(a),
                    java.time.Duration.ofMillis(250)));
        }
        return out;
    }

    /** tenant, api key, ..., deployment: every bucket limits requests, tokens and concurrency. */
    private static BucketPlan[] path(int n) {
        ScopeLevel[] levels = ScopeLevel.values();
        List<BucketPlan> out = new ArrayList<>();
        for (int i = levels.length - n; i < levels.length; i++) {
            out.add(BucketPlan.of(Scope.of(levels[i], "bench"), Limits.of(Limit.of(Dimension.REQUESTS, 1_000_000_000L),
                    Limit.of(Dimension.TOTAL_TOKENS, 1_000_000_000_000L), Limit.of(Dimension.CONCURRENT_REQUESTS, 1_000_000))));
        }
        return out.toArray(BucketPlan[]::new);
    }

    /** Library calls (FCALL and EVALSHA together), their microseconds, and Redis main-thread CPU seconds. */
    private static Map<String, Double> serverStats(RedisCommands<String, String> info) {
        Map<String, Double> out = new HashMap<>();
        out.put("calls", 0.0);
        out.put("usec", 0.0);
        out.put("cpu", 0.0);
        for (String line : info.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_fcall:") || line.startsWith("cmdstat_evalsha:")) {
                for (String kv : line.substring(line.indexOf(':') + 1).split(",")) {
                    String[] p = kv.split("=");
                    if (p[0].equals("calls") || p[0].equals("usec")) {
                        out.merge(p[0], Double.parseDouble(p[1]), Double::sum);
                    }
                }
            }
        }
        for (String line : info.info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_sys_main_thread:") || line.startsWith("used_cpu_user_main_thread:")) {
                out.merge("cpu", Double.parseDouble(line.substring(line.indexOf(':') + 1).trim()), Double::sum);
            }
        }
        return out;
    }

    private static void deleteNamespace(RedisCommands<String, String> cmd, String ns) {
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = cmd.scan(cursor, ScanArgs.Builder.matches(ns + ":*").limit(500));
            if (!page.getKeys().isEmpty()) {
                cmd.unlink(page.getKeys().toArray(String[]::new));
            }
            cursor = page;
        } while (!cursor.isFinished());
    }

    private record Result(long pairs, long rejected, long unavailable, Histogram admit, Histogram settle) {}

    private static Result run(QuotaStore store, BucketPlan[] path, long[] amounts, long[] actual, int threads,
            int seconds) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(threads);
        List<long[]> counts = new ArrayList<>();
        List<Histogram> admits = new ArrayList<>();
        List<Histogram> settles = new ArrayList<>();
        // Each worker stops by itself at the deadline, so the run is bounded without anyone sleeping.
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        for (int t = 0; t < threads; t++) {
            long[] c = new long[3];
            Histogram ha = new Histogram(3_600_000_000_000L, 3);
            Histogram hs = new Histogram(3_600_000_000_000L, 3);
            counts.add(c);
            admits.add(ha);
            settles.add(hs);
            Thread th = new Thread(() -> {
                try {
                    while (true) {
                        long t0 = System.nanoTime();
                        if (t0 >= deadline) {
                            break;
                        }
                        try {
                            ReserveOutcome o = store.reserve(path, amounts, 600_000_000_000L);
                            long t1 = System.nanoTime();
                            ha.recordValue(t1 - t0);
                            if (o instanceof ReserveOutcome.Granted g) {
                                store.settle(g.lease(), actual);
                                hs.recordValue(System.nanoTime() - t1);
                                c[0]++;
                            } else {
                                c[1]++;
                            }
                        } catch (StoreUnavailableException e) {
                            c[2]++;
                        }
                    }
                } finally {
                    done.countDown();
                }
            }, "bench-" + t);
            th.start();
        }
        done.await();
        Histogram a = new Histogram(3_600_000_000_000L, 3);
        Histogram s = new Histogram(3_600_000_000_000L, 3);
        long pairs = 0;
        long rejected = 0;
        long unavailable = 0;
        for (int t = 0; t < threads; t++) {
            pairs += counts.get(t)[0];
            rejected += counts.get(t)[1];
            unavailable += counts.get(t)[2];
            a.add(admits.get(t));
            s.add(settles.get(t));
        }
        return new Result(pairs, rejected, unavailable, a, s);
    }
}
