package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.time.FakeClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three replicas in leased mode share a deployment of 1,200 requests a minute (20/s, burst 200)
 * under 300 requests a second for 60 s: shares never add up to more than the bucket, and what is
 * admitted stays within the documented bound.
 */
class LeasedModeTest {

    private final String ns = RedisTestSupport.namespace();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        RedisTestSupport.deleteNamespace(ns);
    }

    @Test
    void sharesNeverExceedTheBucketAndAdmissionsStayWithinTheBound() {
        FakeClock clock = new FakeClock();
        BucketPlan dep = BucketPlan.of(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt"),
                Limits.of(Limit.of(Dimension.REQUESTS, 1_200)));
        List<LeasedQuotaStore> replicas = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            RedisQuotaStore remote = RedisQuotaStore.connect(RedisTestSupport.URI,
                    RedisTestSupport.config(ns).testClock(clock).build());
            LeasedQuotaStore leased = new LeasedQuotaStore(remote, clock, LeasedConfig.defaults());
            replicas.add(leased);
            closing.add(remote);
            closing.add(0, leased);
        }
        long[] one = new long[Dimension.COUNT];
        one[Dimension.REQUESTS.ordinal()] = 1;
        int steps = 6_000;
        int[] admitted = new int[steps];
        for (int step = 0; step < steps; step++) {
            for (LeasedQuotaStore s : replicas) {
                if (s.reserve(new BucketPlan[] {dep}, one, 60_000_000_000L) instanceof ReserveOutcome.Granted g) {
                    admitted[step]++;
                    s.settle(g.lease(), one);
                }
            }
            double sum = 0;
            for (LeasedQuotaStore s : replicas) {
                sum += s.share(dep);
            }
            assertThat(sum).as("step %d", step).isLessThanOrEqualTo(1.0 + 1e-9);
            clock.advanceNanos(10_000_000L);
        }
        int total = 0;
        int[] prefix = new int[steps + 1];
        for (int i = 0; i < steps; i++) {
            total += admitted[i];
            prefix[i + 1] = prefix[i] + admitted[i];
        }
        // Every 10 s window: at most the rate plus the bucket's capacity plus one capacity of shares
        // that moved to a replica starting a fresh local bucket (docs/REDIS.md).
        for (int s = 0; s + 1_000 <= steps; s++) {
            assertThat(prefix[s + 1_000] - prefix[s]).as("window from %d ms", s * 10).isLessThanOrEqualTo(202 + 200 + 200);
        }
        // Once shares have settled (equal demand: a third each) the rate is the limit, less rounding.
        for (int s = 2_000; s + 1_000 <= steps; s++) {
            assertThat(prefix[s + 1_000] - prefix[s]).as("window from %d ms", s * 10).isBetween(194, 202);
        }
        assertThat(total).isLessThanOrEqualTo(1_200 + 200 + 200);
        for (LeasedQuotaStore s : replicas) {
            assertThat(s.share(dep)).isBetween(0.30, 0.34);
        }
    }
}
