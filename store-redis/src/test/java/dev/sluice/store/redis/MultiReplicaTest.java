package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.governor.Usage;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.QuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three governors, each with its own store connection, share one provider deployment of 1,200
 * requests a minute (20 a second, a configured burst of 200) under a load of 300 requests a second for 60 s. Driven
 * in one thread on one manual clock, so the run is the same every time.
 */
class MultiReplicaTest {

    private static final long STEP_NANOS = 10_000_000L;
    private static final int STEPS = 6_000;
    private static final int WINDOW_STEPS = 1_000;
    private static final double RATE_PER_WINDOW = 200.0;
    private static final double BURST = 200.0;

    private final String ns = RedisTestSupport.namespace();
    private final List<QuotaStore> stores = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        stores.forEach(QuotaStore::close);
        RedisTestSupport.deleteNamespace(ns);
    }

    private static final RequestPath PATH = new RequestPath("org", "acme", "team", "key", "chat", "gpt-east");

    private static GovernorConfig config() {
        return GovernorConfig.builder()
                .scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt-east"), Limits.builder().add(Dimension.REQUESTS, 1_200, 200).build())
                .build();
    }

    /** Admitted requests per step, all three replicas together. */
    private int[] run(Function<FakeClock, QuotaStore> storeFactory) {
        FakeClock clock = new FakeClock();
        List<QuotaGovernor> governors = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            QuotaStore s = storeFactory.apply(clock);
            stores.add(s);
            governors.add(new QuotaGovernor(config(), s, clock));
        }
        int[] admitted = new int[STEPS];
        long id = 0;
        for (int step = 0; step < STEPS; step++) {
            for (QuotaGovernor g : governors) {
                // A deadline 1 ns away: admitted now or rejected now, never queued.
                Decision d = g.admit(new AdmissionRequest("r" + (++id), PATH, new Demand(10, 10, false),
                        TrafficClass.INTERACTIVE, clock.nanos() + 1));
                assertThat(d).isNotInstanceOf(Decision.Queued.class);
                if (d instanceof Decision.Admitted a) {
                    admitted[step]++;
                    a.reservation().settle(new Usage(10, 12));
                }
            }
            clock.advanceNanos(STEP_NANOS);
        }
        return admitted;
    }

    private static int[] windows(int[] perStep) {
        int[] prefix = new int[perStep.length + 1];
        for (int i = 0; i < perStep.length; i++) {
            prefix[i + 1] = prefix[i] + perStep[i];
        }
        int[] w = new int[perStep.length - WINDOW_STEPS + 1];
        for (int s = 0; s < w.length; s++) {
            w[s] = prefix[s + WINDOW_STEPS] - prefix[s];
        }
        return w;
    }

    private static int total(int[] perStep) {
        int t = 0;
        for (int n : perStep) {
            t += n;
        }
        return t;
    }

    @Test
    void threeReplicasOnRedisAdmitTheLimitInEveryTenSecondWindow() {
        int[] shared = run(clock -> RedisQuotaStore.connect(RedisTestSupport.URI,
                RedisTestSupport.config(ns).testClock(clock).build()));
        int[] w = windows(shared);
        for (int s = 0; s < w.length; s++) {
            assertThat((double) w[s]).as("window from %d ms", s * 10).isLessThanOrEqualTo(RATE_PER_WINDOW * 1.01 + BURST);
        }
        // Once the first burst is spent every window carries the refill rate, to within 1%.
        for (int s = WINDOW_STEPS; s < w.length; s++) {
            assertThat((double) w[s]).as("window from %d ms", s * 10).isBetween(RATE_PER_WINDOW * 0.99, RATE_PER_WINDOW * 1.01);
        }
        // 60 s at 20/s plus the burst.
        assertThat(total(shared)).isBetween(1_395, 1_401);
    }

    @Test
    void threeReplicasWithTheirOwnMemoryAdmitThreeTimesTheLimit() {
        int[] separate = run(clock -> new InMemoryQuotaStore(clock, ZoneOffset.UTC));
        int[] w = windows(separate);
        for (int s = WINDOW_STEPS; s < w.length; s++) {
            assertThat((double) w[s]).isBetween(3 * RATE_PER_WINDOW * 0.99, 3 * RATE_PER_WINDOW * 1.01);
        }
        // The shared run admits 1,400 (60 s at 20/s plus one burst); three private buckets, three times that.
        assertThat(total(separate)).isBetween(4_185, 4_203);
    }
}
