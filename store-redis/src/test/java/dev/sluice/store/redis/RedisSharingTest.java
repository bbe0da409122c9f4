package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.FakeClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What replicas sharing one namespace see of each other, and how the store copes with Redis. */
class RedisSharingTest {

    private static final long SECOND = 1_000_000_000L;
    private final String ns = RedisTestSupport.namespace();
    private final FakeClock clock = new FakeClock();
    private final List<RedisQuotaStore> stores = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        stores.forEach(RedisQuotaStore::close);
        RedisTestSupport.deleteNamespace(ns);
    }

    private RedisQuotaStore replica(RedisStoreConfig.Builder b) {
        RedisQuotaStore s = RedisQuotaStore.connect(RedisTestSupport.URI, b.testClock(clock).build());
        stores.add(s);
        return s;
    }

    private RedisQuotaStore replica() {
        return replica(RedisTestSupport.config(ns));
    }

    private static final BucketPlan DEP = BucketPlan.of(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt"),
            Limits.of(Limit.of(Dimension.TOTAL_TOKENS, 6_000), Limit.of(Dimension.CONCURRENT_REQUESTS, 1)));

    private static long[] oneCall(long tokens) {
        long[] a = new long[Dimension.COUNT];
        a[Dimension.TOTAL_TOKENS.ordinal()] = tokens;
        a[Dimension.CONCURRENT_REQUESTS.ordinal()] = 1;
        return a;
    }

    @Test
    void aDeadReplicasLeaseIsReclaimedByTheNextReservationAfterItsTtl() {
        RedisQuotaStore dead = replica();
        RedisQuotaStore alive = replica();
        assertThat(dead.reserve(new BucketPlan[] {DEP}, oneCall(100), 5 * SECOND)).isInstanceOf(ReserveOutcome.Granted.class);
        dead.close();
        stores.remove(dead);
        assertThat(alive.reserve(new BucketPlan[] {DEP}, oneCall(100), 5 * SECOND)).isInstanceOf(ReserveOutcome.Short.class);
        clock.advance(Duration.ofSeconds(5));
        assertThat(alive.reserve(new BucketPlan[] {DEP}, oneCall(100), 5 * SECOND)).isInstanceOf(ReserveOutcome.Granted.class);
        assertThat(alive.state(DEP).of(Dimension.CONCURRENT_REQUESTS).orElseThrow().expired()).isEqualTo(1);
        assertThat(alive.openLeases()).isEqualTo(1);
    }

    @Test
    void aCooldownSetByOneReplicaHoldsForAll() {
        RedisQuotaStore a = replica();
        RedisQuotaStore b = replica();
        a.control(DEP, Dimension.TOTAL_TOKENS, 0.5, 30 * SECOND);
        ReserveOutcome o = b.reserve(new BucketPlan[] {DEP}, oneCall(100), 60 * SECOND);
        assertThat(o).isInstanceOf(ReserveOutcome.Short.class);
        assertThat(((ReserveOutcome.Short) o).waitNanos()).isEqualTo(30 * SECOND);
        assertThat(b.state(DEP).of(Dimension.TOTAL_TOKENS).orElseThrow().rateFactor()).isEqualTo(0.5);
    }

    @Test
    void aLeaseSettlesOnTheReplicaThatDidNotGrantIt() {
        RedisQuotaStore a = replica();
        RedisQuotaStore b = replica();
        var g = (ReserveOutcome.Granted) a.reserve(new BucketPlan[] {DEP}, oneCall(100), 60 * SECOND);
        assertThat(b.openLeases()).isEqualTo(1);
        assertThat(a.settle(g.lease(), oneCall(40))).isEqualTo(SettleOutcome.SETTLED);
        assertThat(b.openLeases()).isZero();
    }

    @Test
    void scriptsFlushedFromTheServerAreLoadedAgain() {
        RedisQuotaStore s = replica();
        RedisClient admin = RedisClient.create(RedisTestSupport.URI);
        try (StatefulRedisConnection<String, String> c = admin.connect()) {
            c.sync().scriptFlush();
        } finally {
            admin.shutdown();
        }
        assertThat(s.reserve(new BucketPlan[] {DEP}, oneCall(100), SECOND)).isInstanceOf(ReserveOutcome.Granted.class);
    }

    @Test
    void aNamespaceOfAnotherFormatIsRefused() {
        RedisClient admin = RedisClient.create(RedisTestSupport.URI);
        try (StatefulRedisConnection<String, String> c = admin.connect()) {
            c.sync().hset(ns + ":{" + ns + "}:meta", "format", "1");
        } finally {
            admin.shutdown();
        }
        assertThatThrownBy(this::replica).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("state format 1 (expected: 2)");
    }

    @Test
    void aPathSpreadOverSlotsIsStillAllOrNothing() {
        RedisQuotaStore s = replica(RedisTestSupport.config(ns).grouping(SlotGrouping.perBucket()));
        BucketPlan tenant = BucketPlan.of(Scope.of(ScopeLevel.TENANT, "acme"), Limits.of(Limit.of(Dimension.TOTAL_TOKENS, 1_000)));
        BucketPlan[] path = {tenant, DEP};
        var first = (ReserveOutcome.Granted) s.reserve(path, oneCall(100), 60 * SECOND);
        ReserveOutcome second = s.reserve(path, oneCall(100), 60 * SECOND);
        assertThat(second).isInstanceOf(ReserveOutcome.Short.class);
        assertThat(((ReserveOutcome.Short) second).pathIndex()).isEqualTo(1);
        // The tenant's part of the refused request was given back.
        assertThat(s.state(tenant).of(Dimension.TOTAL_TOKENS).orElseThrow().available()).isEqualTo(900.0);
        assertThat(s.openLeases()).isEqualTo(1);
        assertThat(s.settle(first.lease(), oneCall(50))).isEqualTo(SettleOutcome.SETTLED);
        assertThat(s.state(tenant).of(Dimension.TOTAL_TOKENS).orElseThrow().available()).isEqualTo(950.0);
        assertThat(s.state(tenant).of(Dimension.TOTAL_TOKENS).orElseThrow().conserved()).isTrue();
        assertThat(s.openLeases()).isZero();
    }

    @Test
    void heartbeatsCountLiveReplicas() {
        RedisQuotaStore a = replica();
        RedisQuotaStore b = replica();
        assertThat(a.sharedControl().heartbeat(Duration.ofSeconds(10))).isEqualTo(1);
        assertThat(b.sharedControl().heartbeat(Duration.ofSeconds(10))).isEqualTo(2);
        clock.advance(Duration.ofSeconds(11));
        assertThat(b.sharedControl().heartbeat(Duration.ofSeconds(10))).isEqualTo(1);
        assertThat(b.sharedControl().lastKnownLiveReplicas()).isEqualTo(1);
    }

    @Test
    void aFleetHeartbeatCountsReplicasUntilTheyLeaveOrFallSilent() {
        FleetHeartbeat a = FleetHeartbeat.manual(replica(), Duration.ofSeconds(2));
        FleetHeartbeat b = FleetHeartbeat.manual(replica(), Duration.ofSeconds(2));
        FleetHeartbeat c = FleetHeartbeat.manual(replica(), Duration.ofSeconds(2));
        assertThat(a.beat()).isEqualTo(1);
        assertThat(b.beat()).isEqualTo(2);
        assertThat(c.beat()).isEqualTo(3);
        b.close();
        assertThat(a.beat()).isEqualTo(2);
        // c falls silent: live for three intervals after its last beat, then gone.
        clock.advance(Duration.ofSeconds(5));
        assertThat(a.beat()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(2));
        assertThat(a.beat()).isEqualTo(1);
        assertThat(a.liveReplicas()).isEqualTo(1);
    }

    @Test
    void aRampStageIsSharedByDeployment() {
        RedisQuotaStore a = replica();
        RedisQuotaStore b = replica();
        a.sharedControl().setRampStage("gpt", 3);
        assertThat(b.sharedControl().rampStage("gpt")).isEqualTo(OptionalInt.of(3));
        assertThat(b.sharedControl().rampStage("claude")).isEmpty();
    }

    @Test
    void serverTimeRefillsBetweenCalls() {
        RedisQuotaStore s = RedisQuotaStore.connect(RedisTestSupport.URI, RedisTestSupport.config(ns).build());
        stores.add(s);
        BucketPlan fast = BucketPlan.of(Scope.of(ScopeLevel.TENANT, "fast"),
                Limits.of(Limit.of(Dimension.TOTAL_TOKENS, 6_000_000_000L, 1_000_000_000L)));
        long[] all = new long[Dimension.COUNT];
        all[Dimension.TOTAL_TOKENS.ordinal()] = 1_000_000_000L;
        assertThat(s.reserve(new BucketPlan[] {fast}, all, SECOND)).isInstanceOf(ReserveOutcome.Granted.class);
        // 100 tokens a microsecond: the next call, a round trip later, finds some back.
        double first = s.state(fast).of(Dimension.TOTAL_TOKENS).orElseThrow().available();
        double second = s.state(fast).of(Dimension.TOTAL_TOKENS).orElseThrow().available();
        assertThat(first).isPositive();
        assertThat(second).isGreaterThan(first);
    }
}
