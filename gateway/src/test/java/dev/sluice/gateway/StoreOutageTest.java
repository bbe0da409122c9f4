package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.limits.Dimension;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A quota store that cannot be reached: the request is not sent and the client is told so. */
class StoreOutageTest {

    /** Every call fails, as a shared store does during an outage under a fail-closed policy. */
    static final class UnreachableStore implements QuotaStore {
        volatile Boolean reservedOnEventLoop;
        private final boolean remote;

        UnreachableStore(boolean remote) {
            this.remote = remote;
        }

        /** A remote store (Redis) waits on the network; the runtime then calls it from a worker. */
        @Override
        public boolean waitsOnNetwork() {
            return remote;
        }

        @Override
        public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
            reservedOnEventLoop = io.vertx.core.Context.isOnEventLoopThread();
            throw new IllegalStateException("store unreachable");
        }

        @Override
        public SettleOutcome settle(LeaseHandle lease, long[] actual) {
            throw new IllegalStateException("store unreachable");
        }

        @Override
        public SettleOutcome release(LeaseHandle lease) {
            throw new IllegalStateException("store unreachable");
        }

        @Override
        public int expireLeases() {
            return 0;
        }

        @Override
        public int openLeases() {
            return 0;
        }

        @Override
        public void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos) {}

        @Override
        public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {}

        @Override
        public BucketState state(BucketPlan plan) {
            return new BucketState(plan.key(), List.of());
        }
    }

    @ParameterizedTest(name = "store kind {0}")
    @ValueSource(strings = {"memory", "redis"})
    void unreachableQuotaStoreAnswers503WithoutCallingTheProvider(String kind) throws Exception {
        // With kind redis the gateway calls the store from a worker thread, never from the event loop.
        SluiceConfig config = ConfigLoader.parse("""
                server: { port: 0 }
                store: { kind: %s }
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 100 } } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { t: { teams: { x: { keys: { k: { secret: "sk-outage" } } } } } } } }
                """.formatted(kind), "outage.yaml", v -> null);
        Vertx vertx = Vertx.vertx();
        UnreachableStore store = new UnreachableStore(kind.equals("redis"));
        Gateway g = GatewayFixture.await(Gateway.builder(config).vertx(vertx).instances(1).store(store).start());
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(g.baseUrl() + "/v1/chat/completions")).header("authorization", "Bearer sk-outage")
                    .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                            "{\"model\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("quota_store_unavailable");
            // The answer is written before its bookkeeping: the counters catch up a moment after the client has it.
            GatewayFixture.awaitCondition(vertx, () -> g.counters().balanced(), () -> "not balanced: " + g.counters());
            assertThat(store.reservedOnEventLoop).isEqualTo(kind.equals("memory"));
        } finally {
            GatewayFixture.await(g.stop());
            GatewayFixture.await(vertx.close());
        }
    }
}
