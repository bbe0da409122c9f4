package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.Reservation;
import dev.sluice.governor.TrafficClass;
import dev.sluice.governor.Usage;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A redis-server of the test's own is killed in the middle of a run and started again. One
 * deployment fails open to a local half share (two replicas), the other fails closed. Every
 * request gets exactly one answer throughout, and after recovery Redis counts each admission once.
 */
class FailoverTest {

    private static final Limits LIMITS = Limits.builder().add(Dimension.REQUESTS, 600).build();

    private final FakeClock clock = new FakeClock();
    private final Map<String, int[]> answers = Map.of("open", new int[4], "closed", new int[4]);
    private static final int SHARED = 0;
    private static final int LOCAL = 1;
    private static final int REJECTED = 2;
    private static final int UNAVAILABLE = 3;
    private int sent;
    private long ids;

    private int step(QuotaGovernor governor, List<Reservation> hold) {
        int sharedNow = 0;
        for (String dep : List.of("open", "closed")) {
            sent++;
            int[] a = answers.get(dep);
            try {
                Decision d = governor.admit(new AdmissionRequest("r" + (++ids),
                        new RequestPath("org", "acme", "team", "key", "chat", dep), new Demand(5, 5, false),
                        TrafficClass.INTERACTIVE, clock.nanos() + 1));
                if (d instanceof Decision.Admitted ad) {
                    boolean local = ad.reservation().id().startsWith("local:");
                    a[local ? LOCAL : SHARED]++;
                    sharedNow += local ? 0 : 1;
                    if (hold != null && hold.size() < 5) {
                        hold.add(ad.reservation());
                    } else {
                        ad.reservation().settle(new Usage(5, 7));
                    }
                } else {
                    assertThat(d).isInstanceOf(Decision.Rejected.class);
                    a[REJECTED]++;
                }
            } catch (StoreUnavailableException e) {
                a[UNAVAILABLE]++;
            }
        }
        clock.advance(Duration.ofMillis(10));
        return sharedNow;
    }

    private int[] snapshot(String dep) {
        return answers.get(dep).clone();
    }

    private int answered() {
        int n = 0;
        for (int[] a : answers.values()) {
            for (int x : a) {
                n += x;
            }
        }
        return n;
    }

    @Test
    void everyRequestGetsOneAnswerWhileRedisDiesAndComesBack() throws Exception {
        try (OwnRedisServer server = new OwnRedisServer()) {
            server.start();
            RedisQuotaStore redis = RedisQuotaStore.connect(server.uri(), RedisStoreConfig.builder()
                    .namespace("failover").testClock(clock).commandTimeout(Duration.ofMillis(300))
                    .reconnectDelay(Duration.ofMillis(50)).build());
            FailoverQuotaStore store = new FailoverQuotaStore(redis, new FailoverConfig(FailurePolicy.FAIL_CLOSED,
                    Map.of("open", FailurePolicy.FAIL_OPEN_LOCAL), Duration.ofSeconds(1), ZoneOffset.UTC), clock, () -> 2);
            QuotaGovernor governor = new QuotaGovernor(GovernorConfig.builder()
                    .scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "open"), LIMITS)
                    .scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "closed"), LIMITS)
                    .build(), store, clock);
            List<Reservation> held = new ArrayList<>();

            // Up: everything through Redis.
            for (int i = 0; i < 300; i++) {
                step(governor, held);
            }
            assertThat(snapshot("open")[SHARED]).isPositive();
            assertThat(snapshot("open")[LOCAL]).isZero();
            assertThat(snapshot("closed")[UNAVAILABLE]).isZero();

            // Down: open admits from its local half share, closed answers "unavailable".
            server.kill();
            int[] openBefore = snapshot("open");
            int[] closedBefore = snapshot("closed");
            for (int i = 0; i < 300; i++) {
                step(governor, null);
            }
            assertThat(snapshot("open")[LOCAL] - openBefore[LOCAL]).isPositive();
            assertThat(snapshot("open")[SHARED]).isEqualTo(openBefore[SHARED]);
            assertThat(snapshot("closed")[UNAVAILABLE] - closedBefore[UNAVAILABLE]).isEqualTo(300);
            // Settling shared leases during the outage is queued, not lost and not an error.
            for (Reservation r : held) {
                assertThat(r.settle(new Usage(5, 5))).isEqualTo(SettleOutcome.SETTLED);
            }
            assertThat(redis.pendingReplays()).isGreaterThanOrEqualTo(held.size());

            // Back (empty: no persistence). Runs until Redis admits again and the queue has drained.
            server.start();
            int[] openAtRestart = snapshot("open");
            int sharedAfter = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            int steps = 0;
            while ((sharedAfter == 0 || redis.pendingReplays() > 0) && steps < 1_000_000 && System.nanoTime() < deadline) {
                sharedAfter += step(governor, null);
                steps++;
            }
            for (int i = 0; i < 300; i++) {
                sharedAfter += step(governor, null);
            }
            assertThat(sharedAfter).isPositive();
            assertThat(redis.pendingReplays()).isZero();
            assertThat(store.degraded()).isFalse();

            assertThat(answered()).isEqualTo(sent);
            // Redis lost its state in the restart; it now holds exactly the admissions made since.
            BucketState.DimensionState open = redis.state(BucketPlan.of(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "open"),
                    LIMITS)).of(Dimension.REQUESTS).orElseThrow();
            assertThat(open.reserved()).isEqualTo(snapshot("open")[SHARED] - openAtRestart[SHARED]);
            assertThat(open.open()).isZero();
            assertThat(open.conserved()).isTrue();
            assertThat(redis.openLeases()).isZero();
            store.close();
        }
    }
}
