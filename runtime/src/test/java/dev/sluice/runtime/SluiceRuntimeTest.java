package dev.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.limits.Dimension;
import dev.sluice.time.NanoClock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/** The assembly decides once where store calls run: in place for memory, on the host's workers for a remote store. */
class SluiceRuntimeTest {

    private static final SluiceConfig CONFIG = OneRouteConfig.of("limits: { rpm: 600 }, adaptive: { enabled: true }",
            "", "sk-test-assembly");

    @Test
    void aRemoteStoresCallsAndAdaptiveReactionsGoToTheWorkers() {
        Queue<Runnable> workers = new ConcurrentLinkedQueue<>();
        RecordingStore store = new RecordingStore(true);
        SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, store).workers(workers::add).build();

        assertThat(runtime.storeCalls().offloaded()).isTrue();
        int atStart = store.controlled; // setting the deployment up may write from the building thread
        runtime.feed("oa", SignalNormaliser.connectionFailed(), 1_000_000);
        runtime.tick();
        assertThat(store.controlled).isEqualTo(atStart);
        assertThat(workers).hasSize(2);
    }

    @Test
    void anInMemoryStoreIsCalledInPlaceEvenWhenWorkersAreOffered() {
        Queue<Runnable> workers = new ConcurrentLinkedQueue<>();
        SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, new RecordingStore(false)).workers(workers::add).build();

        assertThat(runtime.storeCalls().offloaded()).isFalse();
        runtime.feed("oa", new SignalNormaliser(ProviderKind.OPENAI).normalise(429, n -> List.of(), "", 0), 1_000_000);
        assertThat(workers).isEmpty();
    }

    /** The in-memory store, saying it waits on the network or not, and counting adaptive writes. */
    private static final class RecordingStore implements QuotaStore {
        private final QuotaStore delegate = new InMemoryQuotaStore(NanoClock.system(), ZoneOffset.UTC);
        private final boolean remote;
        volatile int controlled;

        RecordingStore(boolean remote) {
            this.remote = remote;
        }

        @Override
        public boolean waitsOnNetwork() {
            return remote;
        }

        @Override
        public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
            return delegate.reserve(path, amounts, leaseTtlNanos);
        }

        @Override
        public SettleOutcome settle(LeaseHandle lease, long[] actual) {
            return delegate.settle(lease, actual);
        }

        @Override
        public SettleOutcome release(LeaseHandle lease) {
            return delegate.release(lease);
        }

        @Override
        public int expireLeases() {
            return delegate.expireLeases();
        }

        @Override
        public int openLeases() {
            return delegate.openLeases();
        }

        @Override
        public void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos) {
            controlled++;
            delegate.control(plan, dimension, rateFactor, pauseNanos);
        }

        @Override
        public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
            delegate.syncDown(plan, dimension, remaining);
        }

        @Override
        public BucketState state(BucketPlan plan) {
            return delegate.state(plan);
        }
    }
}
