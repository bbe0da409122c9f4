package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.time.FakeClock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis store gives bit-for-bit the answers and states of the in-memory store over long
 * random runs: reservations on a six-bucket path, settlements with overage, releases, expiry,
 * rate factors, pauses, syncs and daily roll-over, on one manual clock.
 */
class RedisMatchesInMemoryTest {

    private final String ns = RedisTestSupport.namespace();

    @AfterEach
    void cleanUp() {
        RedisTestSupport.deleteNamespace(ns);
    }

    private static BucketPlan plan(ScopeLevel level, String id, Limit... limits) {
        return BucketPlan.of(Scope.of(level, id), Limits.of(limits));
    }

    @Test
    void twoThousandRandomStepsGiveIdenticalAnswersAndStates() {
        FakeClock clock = new FakeClock();
        ZoneId zone = ZoneId.of("America/New_York");
        QuotaStore mem = new InMemoryQuotaStore(clock, zone);
        BucketPlan[] path = {
            plan(ScopeLevel.ORGANISATION, "o", Limit.of(Dimension.TOTAL_TOKENS, 50_000)),
            plan(ScopeLevel.TENANT, "t", Limit.of(Dimension.REQUESTS, 120), Limit.of(Dimension.DAILY_TOKENS, 400_000)),
            plan(ScopeLevel.TEAM, "team", Limit.of(Dimension.INPUT_TOKENS, 20_000, 5_000)),
            plan(ScopeLevel.API_KEY, "k", Limit.of(Dimension.CONCURRENT_REQUESTS, 5), Limit.of(Dimension.DAILY_REQUESTS, 900)),
            plan(ScopeLevel.MODEL_PROFILE, "p", Limit.of(Dimension.OUTPUT_TOKENS, 9_000)),
            plan(ScopeLevel.PROVIDER_DEPLOYMENT, "d", Limit.of(Dimension.REQUESTS, 300),
                    Limit.of(Dimension.TOTAL_TOKENS, 30_000), Limit.of(Dimension.CONCURRENT_STREAMS, 3)),
        };
        Dimension[] rates = {Dimension.REQUESTS, Dimension.INPUT_TOKENS, Dimension.OUTPUT_TOKENS, Dimension.TOTAL_TOKENS};
        SplittableRandom rnd = new SplittableRandom(7);
        List<LeaseHandle[]> open = new ArrayList<>();
        try (QuotaStore redis = RedisQuotaStore.connect(RedisTestSupport.URI,
                RedisTestSupport.config(ns).testClock(clock).dailyResetZone(zone).reclaimOnReserve(0).build())) {
            for (int step = 0; step < 2_000; step++) {
                clock.advanceNanos(rnd.nextInt(10) == 0 ? rnd.nextLong(3_600_000_000_000L) : rnd.nextLong(400_000_000L));
                int op = rnd.nextInt(100);
                if (op < 50 || open.isEmpty()) {
                    long in = rnd.nextInt(3_000);
                    long out = rnd.nextInt(1_500);
                    long[] a = new long[Dimension.COUNT];
                    a[Dimension.REQUESTS.ordinal()] = 1;
                    a[Dimension.INPUT_TOKENS.ordinal()] = in;
                    a[Dimension.OUTPUT_TOKENS.ordinal()] = out;
                    a[Dimension.TOTAL_TOKENS.ordinal()] = in + out;
                    a[Dimension.CONCURRENT_REQUESTS.ordinal()] = 1;
                    a[Dimension.CONCURRENT_STREAMS.ordinal()] = rnd.nextInt(2);
                    a[Dimension.DAILY_REQUESTS.ordinal()] = 1;
                    a[Dimension.DAILY_TOKENS.ordinal()] = in + out;
                    long ttl = 1 + rnd.nextLong(20_000_000_000L);
                    ReserveOutcome x = mem.reserve(path, a, ttl);
                    ReserveOutcome y = redis.reserve(path, a, ttl);
                    assertThat(y.getClass()).as("step %d", step).isEqualTo(x.getClass());
                    if (x instanceof ReserveOutcome.Short s) {
                        assertThat(y).as("step %d", step).isEqualTo(s);
                    } else {
                        open.add(new LeaseHandle[] {((ReserveOutcome.Granted) x).lease(), ((ReserveOutcome.Granted) y).lease()});
                    }
                } else if (op < 75) {
                    LeaseHandle[] l = open.remove(rnd.nextInt(open.size()));
                    long[] actual = new long[Dimension.COUNT];
                    actual[Dimension.INPUT_TOKENS.ordinal()] = rnd.nextInt(3_000);
                    actual[Dimension.OUTPUT_TOKENS.ordinal()] = rnd.nextInt(4_000);
                    actual[Dimension.TOTAL_TOKENS.ordinal()] = actual[1] + actual[2];
                    actual[Dimension.REQUESTS.ordinal()] = 1;
                    actual[Dimension.DAILY_REQUESTS.ordinal()] = 1;
                    actual[Dimension.DAILY_TOKENS.ordinal()] = actual[3];
                    assertThat(redis.settle(l[1], actual)).as("step %d", step).isEqualTo(mem.settle(l[0], actual));
                } else if (op < 83) {
                    LeaseHandle[] l = open.remove(rnd.nextInt(open.size()));
                    assertThat(redis.release(l[1])).as("step %d", step).isEqualTo(mem.release(l[0]));
                } else if (op < 90) {
                    assertThat(redis.expireLeases()).as("step %d", step).isEqualTo(mem.expireLeases());
                    assertThat(redis.openLeases()).isEqualTo(mem.openLeases());
                } else if (op < 96) {
                    BucketPlan p = path[rnd.nextInt(path.length)];
                    Dimension d = rates[rnd.nextInt(rates.length)];
                    double factor = rnd.nextInt(4) == 0 ? 1.0 : 0.1 + 0.9 * rnd.nextDouble();
                    long pause = rnd.nextInt(3) == 0 ? rnd.nextLong(5_000_000_000L) : 0;
                    mem.control(p, d, factor, pause);
                    redis.control(p, d, factor, pause);
                } else {
                    BucketPlan p = path[rnd.nextInt(path.length)];
                    Dimension d = rates[rnd.nextInt(rates.length)];
                    long remaining = rnd.nextLong(60_000);
                    mem.syncDown(p, d, remaining);
                    redis.syncDown(p, d, remaining);
                }
                if (step % 10 == 0) {
                    for (BucketPlan p : path) {
                        assertThat(redis.state(p)).as("step %d %s", step, p).isEqualTo(mem.state(p));
                    }
                }
            }
            for (BucketPlan p : path) {
                assertThat(redis.state(p)).isEqualTo(mem.state(p));
            }
        }
    }
}
