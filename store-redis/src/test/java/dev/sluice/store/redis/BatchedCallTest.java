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
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Under load many reservations and settlements go to Redis in one call; each must get the answer
 * it would have got alone, and the buckets must end as after the same calls one by one. The
 * in-memory store makes the calls one by one for comparison.
 */
class BatchedCallTest {

    private static final long TTL = 60_000_000_000L;
    private final String ns = RedisTestSupport.namespace();
    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore mem = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    private final RedisQuotaStore redis = RedisQuotaStore.connect(RedisTestSupport.URI,
            RedisTestSupport.config(ns).testClock(clock).reclaimOnReserve(0).build());

    private final BucketPlan[] path = {
        BucketPlan.of(Scope.of(ScopeLevel.TENANT, "acme"),
                Limits.of(Limit.of(Dimension.TOTAL_TOKENS, 10_000), Limit.of(Dimension.CONCURRENT_REQUESTS, 3))),
        BucketPlan.of(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt"), Limits.of(Limit.of(Dimension.REQUESTS, 600, 5))),
    };

    /** Per reservation made so far: the in-memory lease and the Redis one (null when refused). */
    private final List<LeaseHandle[]> leases = new ArrayList<>();
    private final List<Batcher.Op> ops = new ArrayList<>();
    private final List<Object> expected = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        redis.close();
        RedisTestSupport.deleteNamespace(ns);
    }

    private static long[] call(long tokens) {
        long[] a = new long[Dimension.COUNT];
        a[Dimension.REQUESTS.ordinal()] = 1;
        a[Dimension.TOTAL_TOKENS.ordinal()] = tokens;
        a[Dimension.CONCURRENT_REQUESTS.ordinal()] = 1;
        return a;
    }

    private PathLayout.Group group() {
        return redis.layout(path).groups[0];
    }

    private void reserve(long tokens) {
        ReserveOutcome m = mem.reserve(path, call(tokens), TTL);
        RedisLease lease = new RedisLease(redis.nextLeaseId(), redis.layout(path), call(tokens));
        leases.add(new LeaseHandle[] {m instanceof ReserveOutcome.Granted g ? g.lease() : null, lease});
        ops.add(Batcher.Op.reserve(group(), redis.clock(), lease.members[0], TTL, 0));
        expected.add(m);
    }

    private void settle(int lease, long tokens) {
        LeaseHandle[] l = leases.get(lease);
        expected.add(mem.settle(l[0], call(tokens)));
        ops.add(Batcher.Op.settle(group(), redis.clock(), ((RedisLease) l[1]).members[0], Packing.amounts(call(tokens))));
    }

    private void release(int lease) {
        LeaseHandle[] l = leases.get(lease);
        expected.add(mem.release(l[0]));
        ops.add(Batcher.Op.settle(group(), redis.clock(), ((RedisLease) l[1]).members[0], new byte[0]));
    }

    /** Sends the operations gathered so far as one call and checks every answer and both buckets. */
    private void sendTogetherAndCompare() {
        List<Object> answers = redis.batcher().callTogether(ops);
        assertThat(answers).hasSize(expected.size());
        for (int i = 0; i < answers.size(); i++) {
            Object want = expected.get(i);
            Object got = answers.get(i);
            if (want instanceof ReserveOutcome.Short s) {
                assertThat(RedisQuotaStore.shortfall(path, (List<?>) got)).as("operation %d", i).isEqualTo(s);
            } else if (want instanceof ReserveOutcome.Granted) {
                assertThat(got).as("operation %d", i).isEqualTo(List.of(1L));
            } else {
                assertThat(got).as("operation %d", i).isEqualTo(want == SettleOutcome.ALREADY_CLOSED ? 0L : 1L);
            }
        }
        for (BucketPlan p : path) {
            assertThat(redis.state(p)).isEqualTo(mem.state(p));
        }
        ops.clear();
        expected.clear();
    }

    @Test
    void eightReservationsInOneCallGrantAsManyAsTheSlotsAllow() {
        for (int i = 0; i < 8; i++) {
            reserve(1_500);
        }
        sendTogetherAndCompare();
        assertThat(redis.openLeases()).isEqualTo(3).isEqualTo(mem.openLeases());
    }

    @Test
    void settlementsReleasesAndReservationsInOneCallTakeEffectInOrder() {
        for (int i = 0; i < 3; i++) {
            reserve(2_000);
        }
        sendTogetherAndCompare();
        clock.advanceNanos(700_000_000L);
        settle(0, 1_000);
        settle(0, 1_000);
        reserve(2_000);
        release(1);
        reserve(2_000);
        settle(2, 6_000);
        reserve(9_000);
        sendTogetherAndCompare();
        assertThat(redis.openLeases()).isEqualTo(mem.openLeases());
    }
}
