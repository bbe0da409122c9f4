package dev.sluice.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** A store that stops answering fails the requests it could not decide, and only those. */
class StoreFailureTest {

    /** Delegates to an in-memory store until told to fail. */
    static final class FlakyStore implements QuotaStore {
        final InMemoryQuotaStore inner;
        boolean failing;

        FlakyStore(FakeClock clock) {
            inner = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
        }

        @Override
        public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
            if (failing) {
                throw new IllegalStateException("store unreachable");
            }
            return inner.reserve(path, amounts, leaseTtlNanos);
        }

        @Override
        public SettleOutcome settle(LeaseHandle lease, long[] actual) {
            return inner.settle(lease, actual);
        }

        @Override
        public SettleOutcome release(LeaseHandle lease) {
            return inner.release(lease);
        }

        @Override
        public int expireLeases() {
            return inner.expireLeases();
        }

        @Override
        public int openLeases() {
            return inner.openLeases();
        }

        @Override
        public void control(BucketPlan plan, Dimension d, double f, long p) {
            inner.control(plan, d, f, p);
        }

        @Override
        public void syncDown(BucketPlan plan, Dimension d, long remaining) {
            inner.syncDown(plan, d, remaining);
        }

        @Override
        public BucketState state(BucketPlan plan) {
            return inner.state(plan);
        }
    }

    @Test
    void aQueuedRequestWhoseStoreFailsEndsExceptionallyAndTheOthersStillGetTheirAnswer() {
        FakeClock clock = new FakeClock();
        FlakyStore store = new FlakyStore(clock);
        QuotaGovernor g = new QuotaGovernor(GovernorConfig.builder()
                .scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep"),
                        Limits.of(Limit.of(Dimension.CONCURRENT_REQUESTS, 1))).build(), store, clock);
        GovernorFixture shapes = new GovernorFixture(GovernorConfig.builder().build());
        Reservation running = ((Decision.Admitted) g.admit(shapes.request("a", 1, 1))).reservation();
        CompletableFuture<Decision.Final> waiting =
                ((Decision.Queued) g.admit(shapes.request("b", 1, 1))).outcome().toCompletableFuture();

        store.failing = true;
        running.settle(new Usage(1, 1));

        assertThat(waiting).isCompletedExceptionally();
        assertThatThrownBy(waiting::join).isInstanceOf(CompletionException.class)
                .hasRootCauseMessage("store unreachable");
        assertThat(g.snapshot().lanes().getFirst().queued().get(TrafficClass.BATCH)).isZero();
    }
}
