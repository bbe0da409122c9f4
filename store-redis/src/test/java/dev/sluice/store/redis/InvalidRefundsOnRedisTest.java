package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.Admission;
import dev.sluice.runtime.request.Attempt;
import dev.sluice.runtime.request.AttemptOutcome;
import dev.sluice.runtime.request.RequestLifecycle;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.request.RequestThread;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * On the Redis store the allowance of invalid requests refunded in full
 * ({@code server.invalid_refunds_per_minute}) is the fleet's: two replicas on one namespace give a
 * tenant that many refunds a minute between them, not each.
 */
class InvalidRefundsOnRedisTest {

    private static final String YAML = """
            server: { invalid_refunds_per_minute: 4 }
            deployments:
              d: { kind: anthropic, base_url: "http://127.0.0.1:1", limits: { rpm: 600 } }
            profiles:
              chat: { deployment: d, model: m }
            orgs:
              acme-corp:
                tenants:
                  acme:
                    limits: { daily_requests: 100 }
                    teams:
                      search:
                        keys:
                          main: { secret: "sk-test-invalid" }
                  other:
                    limits: { daily_requests: 100 }
                    teams:
                      t:
                        keys:
                          k: { secret: "sk-test-invalid-other" }
            """;

    private final String ns = RedisTestSupport.namespace();
    private final FakeClock clock = new FakeClock();
    private final List<RedisQuotaStore> stores = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        stores.forEach(RedisQuotaStore::close);
        RedisTestSupport.deleteNamespace(ns);
    }

    private SluiceRuntime replica() {
        RedisQuotaStore s = RedisQuotaStore.connect(RedisTestSupport.URI, RedisTestSupport.config(ns).testClock(clock)
                .build());
        stores.add(s);
        SluiceConfig c = ConfigLoader.parse(YAML, "invalid.yaml", name -> null);
        return SluiceRuntime.builder(c, s).clock(clock).invalidRefunds(s.invalidRefunds()).build();
    }

    /** One request of {@code tenant} through {@code rt}, refused by the provider with a 400 after it was sent. */
    private void refused(SluiceRuntime rt, String tenant) {
        RequestLifecycle life = rt.arrive("4bf92f3577b34da6a3ce929d0e0e4736", RequestThread.inPlace());
        life.operation("anthropic.messages");
        life.planned(new RequestPlan("4bf92f3577b34da6a3ce929d0e0e4736", "anthropic.messages",
                new Caller("acme-corp", tenant, tenant.equals("acme") ? "search" : "t", tenant.equals("acme") ? "main" : "k"), rt.config().profiles().get("chat"),
                TrafficClass.INTERACTIVE, clock.nanos() + 30_000_000_000L,
                new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE), false));
        Attempt[] a = new Attempt[1];
        life.admit(x -> a[0] = ((Admission.Admitted) x).attempt());
        a[0].sending();
        a[0].finish(new AttemptOutcome.Refused(new SignalNormaliser(ProviderKind.ANTHROPIC).normalise(400,
                name -> List.of(), "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"}}", 0)));
        life.answered(400, Optional.empty(), OptionalLong.empty());
        assertThat(rt.counters().reservationsOpen()).isZero();
    }

    private static double dailyLeft(SluiceRuntime rt, String tenant) {
        return rt.governor().bucket(Scope.of(ScopeLevel.TENANT, tenant)).orElseThrow().of(Dimension.DAILY_REQUESTS)
                .orElseThrow().available();
    }

    @Test
    void twoReplicasShareOneAllowanceATenant() {
        SluiceRuntime a = replica();
        SluiceRuntime b = replica();
        for (int i = 0; i < 3; i++) {
            refused(a, "acme");
            refused(b, "acme");
        }

        // Four of the six refunded between the two replicas; per process it would have been all six.
        assertThat(dailyLeft(a, "acme")).isEqualTo(98);
        refused(b, "other");
        assertThat(dailyLeft(b, "other")).as("another tenant's allowance is its own").isEqualTo(100);
    }

    @Test
    void theFleetsAllowanceComesBackAMinuteAfterItsFirstRefund() {
        SluiceRuntime a = replica();
        SluiceRuntime b = replica();
        for (int i = 0; i < 4; i++) {
            refused(a, "acme");
        }
        refused(b, "acme");
        assertThat(dailyLeft(b, "acme")).isEqualTo(99);

        clock.advance(Duration.ofMinutes(1));
        for (int i = 0; i < 4; i++) {
            refused(b, "acme");
        }
        assertThat(dailyLeft(a, "acme")).as("the next minute's four refunded").isEqualTo(99);
        refused(a, "acme");
        assertThat(dailyLeft(a, "acme")).isEqualTo(98);
    }
}
