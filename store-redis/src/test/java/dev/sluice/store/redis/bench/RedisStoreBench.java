package dev.sluice.store.redis.bench;

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
import dev.sluice.store.redis.RedisQuotaStore;
import dev.sluice.store.redis.RedisStoreConfig;
import dev.sluice.time.NanoClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;

/**
 * Admit+settle pairs per second and admission latency through the Redis store on loopback.
 * Not part of the test run. Every pair is one reservation over a path of {@code --buckets}
 * buckets (tenant, key, ..., deployment) followed by its settlement; limits are high enough that
 * every reservation is granted, so each pair is the full write path.
 *
 * <pre>
 * java -cp ... dev.sluice.store.redis.bench.RedisStoreBench --mode exact --threads 16 --seconds 10
 * </pre>
 */
public final class RedisStoreBench {

    private RedisStoreBench() {}

    public static void main(String[] args) throws Exception {
        String uri = "redis://127.0.0.1:6379";
        String mode = "exact";
        int threads = 16;
        int seconds = 10;
        int buckets = 3;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--uri" -> uri = args[i + 1];
                case "--mode" -> mode = args[i + 1];
                case "--threads" -> threads = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--buckets" -> buckets = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option: " + args[i]);
            }
        }
        String ns = "sluicebench:" + UUID.randomUUID().toString().substring(0, 8);
        RedisQuotaStore redis = RedisQuotaStore.connect(uri, RedisStoreConfig.builder().namespace(ns).build());
        QuotaStore store = mode.equals("leased")
                ? new LeasedQuotaStore(redis, NanoClock.system(), LeasedConfig.defaults())
                : redis;
        BucketPlan[] path = path(buckets);
        long[] amounts = new long[Dimension.COUNT];
        amounts[Dimension.REQUESTS.ordinal()] = 1;
        amounts[Dimension.TOTAL_TOKENS.ordinal()] = 500;
        amounts[Dimension.CONCURRENT_REQUESTS.ordinal()] = 1;
        long[] actual = amounts.clone();
        actual[Dimension.TOTAL_TOKENS.ordinal()] = 420;

        run(store, path, amounts, actual, threads, 2, false);
        Result r = run(store, path, amounts, actual, threads, seconds, true);
        System.out.printf(Locale.ROOT,
                "mode=%s threads=%d buckets=%d seconds=%d pairs=%d pairs/s=%.0f rejected=%d "
                        + "admit p50=%.1fus p99=%.1fus p99.9=%.1fus settle p50=%.1fus p99=%.1fus%n",
                mode, threads, buckets, seconds, r.pairs, r.pairs / (double) seconds, r.rejected,
                r.admit.getValueAtPercentile(50) / 1e3, r.admit.getValueAtPercentile(99) / 1e3,
                r.admit.getValueAtPercentile(99.9) / 1e3, r.settle.getValueAtPercentile(50) / 1e3,
                r.settle.getValueAtPercentile(99) / 1e3);
        store.close();
        if (store != redis) {
            redis.close();
        }
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

    private record Result(long pairs, long rejected, Histogram admit, Histogram settle) {}

    private static Result run(QuotaStore store, BucketPlan[] path, long[] amounts, long[] actual, int threads,
            int seconds, boolean measure) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(threads);
        List<long[]> counts = new ArrayList<>();
        List<Histogram> admits = new ArrayList<>();
        List<Histogram> settles = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[] c = new long[2];
            Histogram ha = new Histogram(3_600_000_000_000L, 3);
            Histogram hs = new Histogram(3_600_000_000_000L, 3);
            counts.add(c);
            admits.add(ha);
            settles.add(hs);
            Thread th = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
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
                    }
                } finally {
                    done.countDown();
                }
            }, "bench-" + t);
            th.start();
        }
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        done.await();
        Histogram a = new Histogram(3_600_000_000_000L, 3);
        Histogram s = new Histogram(3_600_000_000_000L, 3);
        long pairs = 0;
        long rejected = 0;
        for (int t = 0; t < threads; t++) {
            pairs += counts.get(t)[0];
            rejected += counts.get(t)[1];
            a.add(admits.get(t));
            s.add(settles.get(t));
        }
        return new Result(pairs, rejected, a, s);
    }
}
