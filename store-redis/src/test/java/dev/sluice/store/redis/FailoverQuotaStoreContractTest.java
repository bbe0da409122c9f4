package dev.sluice.store.redis;

import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.QuotaStoreContract;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.limits.Dimension;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

/**
 * The failover store against the store contract, both ways it can be: while Redis answers it is
 * the Redis store, exactly; while Redis is down and the policy fails open, one replica's local
 * fallback holds the whole of every limit and must keep the same contract.
 */
class FailoverQuotaStoreContractTest {

    private static FailoverConfig failOpen(ZoneId zone) {
        return new FailoverConfig(FailurePolicy.FAIL_OPEN_LOCAL, Map.of(), Duration.ofSeconds(1), zone);
    }

    @Nested
    class WhileRedisAnswers extends QuotaStoreContract {

        private final List<String> namespaces = new ArrayList<>();

        @Override
        protected QuotaStore createStore(FakeClock clock, ZoneId zone) {
            return new FailoverQuotaStore(RedisTestSupport.contractStore(clock, zone, namespaces), failOpen(zone),
                    clock, () -> 1);
        }

        @AfterEach
        void deleteKeys() {
            namespaces.forEach(RedisTestSupport::deleteNamespace);
        }
    }

    @Nested
    class WhileRedisIsDown extends QuotaStoreContract {

        @Override
        protected QuotaStore createStore(FakeClock clock, ZoneId zone) {
            return new FailoverQuotaStore(new Unreachable(), failOpen(zone), clock, () -> 1);
        }
    }

    /** A shared store that never answers. */
    private static final class Unreachable implements QuotaStore {

        private static StoreUnavailableException down() {
            return new StoreUnavailableException("redis: cannot connect (test)", null);
        }

        @Override
        public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
            throw down();
        }

        @Override
        public SettleOutcome settle(LeaseHandle lease, long[] actual) {
            throw down();
        }

        @Override
        public SettleOutcome release(LeaseHandle lease) {
            throw down();
        }

        @Override
        public int expireLeases() {
            throw down();
        }

        @Override
        public int openLeases() {
            throw down();
        }

        @Override
        public void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos) {
            throw down();
        }

        @Override
        public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
            throw down();
        }

        @Override
        public BucketState state(BucketPlan plan) {
            throw down();
        }

        @Override
        public boolean waitsOnNetwork() {
            return true;
        }
    }
}
