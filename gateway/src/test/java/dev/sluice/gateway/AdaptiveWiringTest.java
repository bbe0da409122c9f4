package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.limits.Dimension;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.NanoClock;
import io.vertx.core.Vertx;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A controller's reaction writes to the quota store: with a networked store, never from an event loop. */
class AdaptiveWiringTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void withABlockingStoreAProviderRejectionIsHandledOnAWorker() throws Exception {
        SluiceConfig config = ConfigLoader.parse("""
                deployments:
                  oa: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 600 }, adaptive: { enabled: true } }
                profiles:
                  chat: { deployment: oa, model: gpt-4o-mini }
                orgs:
                  acme-corp:
                    tenants:
                      acme:
                        teams:
                          search:
                            keys:
                              main: { secret: "sk-test-wiring" }
                """, "wiring.yaml", name -> null);
        NanoClock clock = NanoClock.system();
        RecordingStore store = new RecordingStore(new InMemoryQuotaStore(clock, ZoneOffset.UTC));
        QuotaGovernor governor = new QuotaGovernor(config.governorConfig(), store, clock);
        AdaptiveWiring wiring = AdaptiveWiring.attach(config, governor, vertx, 7, true);
        // Attaching may set the deployment up from this thread; what matters is what follows a signal.
        CompletableFuture<String> controlledOn = new CompletableFuture<>();
        store.next = controlledOn;
        ProviderSignal rejected = new SignalNormaliser(ProviderKind.OPENAI).normalise(429,
                name -> name.equalsIgnoreCase("retry-after") ? List.of("2") : List.of(),
                "{\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"requests\","
                        + "\"code\":\"rate_limit_exceeded\"}}", System.currentTimeMillis());
        try {
            vertx.runOnContext(v -> wiring.onResponse("oa", rejected, 1_000_000));

            assertThat(controlledOn.get(10, TimeUnit.SECONDS)).doesNotContain("eventloop");
        } finally {
            wiring.close();
        }
    }

    /** The in-memory store, noting the thread of the first adaptive write after {@link #next} is set. */
    private static final class RecordingStore implements QuotaStore {
        private final QuotaStore delegate;
        volatile CompletableFuture<String> next = new CompletableFuture<>();

        RecordingStore(QuotaStore delegate) {
            this.delegate = delegate;
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
            next.complete(Thread.currentThread().getName());
            delegate.control(plan, dimension, rateFactor, pauseNanos);
        }

        @Override
        public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
            next.complete(Thread.currentThread().getName());
            delegate.syncDown(plan, dimension, remaining);
        }

        @Override
        public BucketState state(BucketPlan plan) {
            return delegate.state(plan);
        }
    }
}
