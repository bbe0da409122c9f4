package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** What the in-memory store does beyond the store contract: bound paths, reloads, many threads. */
class InMemoryQuotaStoreTest {

    private static final long TTL = 60_000_000_000L;

    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);

    private static BucketPlan plan(ScopeLevel level, String id, Limit... limits) {
        return BucketPlan.of(Scope.of(level, id), Limits.of(limits));
    }

    private static long[] need(long requests, long tokens, long slots) {
        long[] a = new long[Dimension.COUNT];
        a[Dimension.REQUESTS.ordinal()] = requests;
        a[Dimension.TOTAL_TOKENS.ordinal()] = tokens;
        a[Dimension.CONCURRENT_REQUESTS.ordinal()] = slots;
        return a;
    }

    private BucketState.DimensionState dim(BucketPlan p, Dimension d) {
        return store.state(p).of(d).orElseThrow();
    }

    private static LeaseHandle granted(ReserveOutcome o) {
        assertThat(o).isInstanceOf(ReserveOutcome.Granted.class);
        return ((ReserveOutcome.Granted) o).lease();
    }

    @Test
    void aBoundPathReservesOnTheSameBucketsAsThePathItself() {
        BucketPlan t = plan(ScopeLevel.TENANT, "acme", Limit.of(Dimension.TOTAL_TOKENS, 1_000));
        BoundPath bound = store.bind(new BucketPlan[] {t});

        granted(bound.reserve(need(0, 600, 0), TTL));
        ReserveOutcome o = store.reserve(new BucketPlan[] {t}, need(0, 600, 0), TTL);

        assertThat(o).isInstanceOf(ReserveOutcome.Short.class);
        assertThat(dim(t, Dimension.TOTAL_TOKENS).available()).isEqualTo(400.0);
    }

    @Test
    void aDimensionFirstLimitedByAReloadStartsFull() {
        BucketPlan before = plan(ScopeLevel.TENANT, "acme", Limit.of(Dimension.REQUESTS, 60));
        granted(store.reserve(new BucketPlan[] {before}, need(1, 0, 0), TTL));

        BucketPlan after = plan(ScopeLevel.TENANT, "acme", Limit.of(Dimension.REQUESTS, 60),
                Limit.of(Dimension.TOTAL_TOKENS, 6_000));

        assertThat(dim(after, Dimension.TOTAL_TOKENS).available()).isEqualTo(6_000.0);
        assertThat(dim(after, Dimension.REQUESTS).reserved()).isEqualTo(1);
    }

    @Test
    void aLeaseGivesBackASlotOnADimensionAReloadStoppedLimiting() {
        BucketPlan limited = plan(ScopeLevel.TENANT, "acme", Limit.of(Dimension.CONCURRENT_REQUESTS, 1),
                Limit.of(Dimension.TOTAL_TOKENS, 1_000));
        LeaseHandle held = granted(store.reserve(new BucketPlan[] {limited}, need(0, 10, 1), TTL));

        BucketPlan unlimited = plan(ScopeLevel.TENANT, "acme", Limit.of(Dimension.TOTAL_TOKENS, 1_000));
        store.state(unlimited);
        store.settle(held, need(0, 10, 0));

        // Limited again: the slot the lease held was given back while the dimension was not limited.
        assertThat(dim(limited, Dimension.CONCURRENT_REQUESTS).available()).isEqualTo(1.0);
        assertThat(dim(limited, Dimension.CONCURRENT_REQUESTS).conserved()).isTrue();
        granted(store.reserve(new BucketPlan[] {limited}, need(0, 10, 1), TTL));
    }

    @Test
    void controlOfADimensionTheBucketDoesNotLimitChangesNothing() {
        BucketPlan t = plan(ScopeLevel.TENANT, "acme", Limit.of(Dimension.TOTAL_TOKENS, 1_000));

        store.control(t, Dimension.REQUESTS, 0.5, 1_000_000_000L);
        store.syncDown(t, Dimension.REQUESTS, 0);

        assertThat(store.state(t).dimensions()).hasSize(1);
        assertThat(dim(t, Dimension.TOTAL_TOKENS).rateFactor()).isEqualTo(1.0);
    }

    @Test
    void aPathOfMoreThanTwelveBucketsIsRefused() {
        // A lease keeps what it took per bucket in one bit per dimension (ten) of two longs: six buckets each.
        BucketPlan[] thirteen = new BucketPlan[13];
        for (int i = 0; i < thirteen.length; i++) {
            thirteen[i] = plan(ScopeLevel.TENANT, "t" + i, Limit.of(Dimension.REQUESTS, 60));
        }

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.reserve(thirteen, need(1, 0, 0), TTL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 12");
    }

    @Test
    void aLeaseOnTwelveBucketsEndsOnEveryOne() {
        BucketPlan[] twelve = new BucketPlan[12];
        for (int i = 0; i < twelve.length; i++) {
            twelve[i] = plan(ScopeLevel.TENANT, "t" + i, Limit.of(Dimension.REQUESTS, 60), Limit.of(Dimension.MONTHLY_COST, 100));
        }
        long[] amounts = need(1, 0, 0);
        amounts[Dimension.MONTHLY_COST.ordinal()] = 40;
        LeaseHandle l = ((ReserveOutcome.Granted) store.reserve(twelve, amounts, TTL)).lease();
        long[] actual = new long[Dimension.COUNT];
        actual[Dimension.REQUESTS.ordinal()] = 1;
        actual[Dimension.MONTHLY_COST.ordinal()] = 25;
        store.settle(l, actual);
        for (BucketPlan p : twelve) {
            BucketState.DimensionState cost = dim(p, Dimension.MONTHLY_COST);
            assertThat(cost.available()).isEqualTo(75.0);
            assertThat(cost.conserved()).isTrue();
        }
    }

    /**
     * Four threads reserve and end leases on overlapping paths (a shared organisation, a tenant
     * each pair of threads shares, a key of their own). Afterwards every slot is back, every
     * counter balances, no lease is open and every lease had its own id.
     */
    @Test
    void manyThreadsOnOverlappingPathsLeaveEveryBucketBalanced() throws Exception {
        BucketPlan org = plan(ScopeLevel.ORGANISATION, "org", Limit.of(Dimension.CONCURRENT_REQUESTS, 3),
                Limit.of(Dimension.TOTAL_TOKENS, 1_000_000_000));
        BucketPlan[] tenants = {plan(ScopeLevel.TENANT, "a", Limit.of(Dimension.CONCURRENT_REQUESTS, 2)),
            plan(ScopeLevel.TENANT, "b", Limit.of(Dimension.CONCURRENT_REQUESTS, 2))};
        List<BucketPlan> all = new ArrayList<>(List.of(org, tenants[0], tenants[1]));
        Set<String> ids = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                BucketPlan key = plan(ScopeLevel.API_KEY, "k" + w, Limit.of(Dimension.REQUESTS, 1_000_000_000),
                        Limit.of(Dimension.CONCURRENT_REQUESTS, 1));
                all.add(key);
                BoundPath path = store.bind(new BucketPlan[] {org, tenants[w % 2], key});
                int seed = w;
                results.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    int granted = 0;
                    for (int i = 0; i < 2_000; i++) {
                        if (path.reserve(need(1, 1 + rnd.nextInt(100), 1), TTL) instanceof ReserveOutcome.Granted g) {
                            granted++;
                            assertThat(ids.add(g.lease().id())).isTrue();
                            if (rnd.nextBoolean()) {
                                store.settle(g.lease(), need(1, rnd.nextInt(200), 0));
                            } else {
                                store.release(g.lease());
                            }
                        }
                    }
                    return granted;
                }));
            }
            int granted = 0;
            for (Future<Integer> f : results) {
                granted += f.get();
            }
            assertThat(granted).isEqualTo(ids.size()).isPositive();
            assertThat(store.openLeases()).isZero();
            assertThat(dim(org, Dimension.CONCURRENT_REQUESTS).available()).isEqualTo(3.0);
            assertThat(dim(org, Dimension.CONCURRENT_REQUESTS).reserved()).isEqualTo(granted);
            for (BucketPlan p : all) {
                for (BucketState.DimensionState d : store.state(p).dimensions()) {
                    assertThat(d.conserved()).as(p + " " + d.dimension()).isTrue();
                    assertThat(d.open()).as(p + " " + d.dimension()).isZero();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
