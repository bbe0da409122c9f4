package dev.sluice.runtime.request;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.Demand;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RecordingSink;
import dev.sluice.signal.Headers;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Routing through a shared provider scope, without sockets: two Azure deployments in one
 * subscription (120 rpm between them: two requests at once) beside OpenAI. A request the
 * subscription cannot take goes to OpenAI, never to the subscription's other deployment, and a
 * 429 naming the subscription pauses it for both.
 */
class ProviderScopeLifecycleTest {

    private static final String TREE = """
            orgs:
              acme-corp:
                tenants:
                  acme:
                    teams:
                      search:
                        keys:
                          main: { secret: "sk-test-scopes" }
            """;
    private static final String DEPLOYMENTS = """
            provider_scopes:
              azure:sub-1/eastus: { limits: { rpm: 120 }, names: [org-east] }
            deployments:
              east-1: { kind: azure-openai, base_url: "http://127.0.0.1:1", azure_deployment: a, limits: { rpm: 600 },
                        provider_scopes: ["azure:sub-1/eastus"] }
              east-2: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: b, limits: { rpm: 600 },
                        provider_scopes: ["azure:sub-1/eastus"] }
              oa: { kind: openai, base_url: "http://127.0.0.1:3", limits: { rpm: 600 } }
            """;
    private static final SignalNormaliser AZURE = new SignalNormaliser(ProviderKind.AZURE_OPENAI);

    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    private final RecordingSink events = new RecordingSink();
    private SluiceRuntime runtime;
    private SluiceConfig config;
    private int arrived;
    private final List<Attempt> held = new ArrayList<>();

    private void start(String profile) {
        config = ConfigLoader.parse(DEPLOYMENTS + "profiles:\n  chat: " + profile + "\n" + TREE, "scopes.yaml",
                name -> null);
        runtime = SluiceRuntime.builder(config, store).clock(clock).events(events).build();
    }

    @AfterEach
    void everyReservationEnded() {
        held.forEach(a -> {
            a.sending();
            a.finish(new AttemptOutcome.Answered(AZURE.normalise(200, Headers.empty(), "", 0),
                    new ObservedUsage(900, 50, 0, 0, true)));
        });
        assertThat(runtime.counters().reservationsOpen()).as(runtime.counters().toString()).isZero();
        assertThat(store.openLeases()).isZero();
    }

    private RequestLifecycle arrive() {
        String trace = "trace-" + (++arrived);
        RequestLifecycle life = runtime.arrive(trace, RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan(trace, "openai.chat", new Caller("acme-corp", "acme", "search", "main"),
                config.profiles().get("chat"), TrafficClass.INTERACTIVE, clock.nanos() + 30_000_000_000L,
                new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE), false));
        return life;
    }

    private static Admission admit(RequestLifecycle life) {
        Admission[] out = new Admission[1];
        life.admit(a -> out[0] = a);
        return out[0];
    }

    private Attempt admitted(RequestLifecycle life) {
        Admission a = admit(life);
        assertThat(a).isInstanceOf(Admission.Admitted.class);
        return ((Admission.Admitted) a).attempt();
    }

    private static ProviderSignal subscription429() {
        return AZURE.normalise(429, name -> name.equalsIgnoreCase("retry-after-ms") ? List.of("4000") : List.of(),
                "{\"error\":{\"code\":\"429\",\"message\":\"Rate limit reached for gpt-4o in organization org-east on "
                        + "requests per min (RPM): Limit 120.\"}}", 0);
    }

    @Test
    void aRequestTheSubscriptionHasNoRoomForRunsOutsideItNotOnItsOtherDeployment() {
        start("{ model: gpt-4o, deployments: [east-1, east-2, oa] }");
        held.add(admitted(arrive()));
        held.add(admitted(arrive())); // the subscription's two requests this second, both on east-1

        RequestLifecycle third = arrive();
        Attempt a = admitted(third);

        assertThat(held).extracting(x -> x.deployment().id()).containsExactly("east-1", "east-1");
        assertThat(a.deployment().id()).as("east-2 has room of its own, but not in the subscription").isEqualTo("oa");
        assertThat(third.fallbackReason()).contains("headroom");
        held.add(a);
    }

    @Test
    void aLocalRefusalByTheSubscriptionNamesItAndForbidsItsOtherDeploymentAsAFallback() {
        start("{ model: gpt-4o, deployments: [east-1, east-2] }");
        held.add(admitted(arrive()));
        held.add(admitted(arrive()));

        RequestLifecycle third = arrive();
        Admission refused = admit(third);

        // One request short at 2 a second: 500 ms, over interactive's 300 ms.
        assertThat(refused).isInstanceOf(Admission.Refused.class);
        var r = ((Admission.Refused) refused).rejection();
        assertThat(r.scopeName()).isEqualTo("provider_scope:azure:sub-1/eastus");
        assertThat(r.code()).isEqualTo("provider_scope_rpm_exhausted");
        assertThat(third.fallbackAllowed()).isFalse();
        assertThat(third.fallbackForbiddenBy()).contains("same_provider_scope");
        third.answered(429, Optional.of(r.code()), OptionalLong.of(r.retryAfterMillis()));
    }

    @Test
    void aProvider429NamingTheSubscriptionPausesItForBothDeploymentsAndMovesOutsideIt() {
        start("{ model: gpt-4o, deployments: [east-1, east-2, oa] }");
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();

        AfterAttempt after = a.finish(new AttemptOutcome.Throttled(subscription429()));

        assertThat(after).isEqualTo(new AfterAttempt.Reroute("provider_429"));
        Demand one = new Demand(1_000, 200, false);
        assertThat(runtime.governor().hasHeadroom("east-2", TrafficClass.INTERACTIVE, one))
                .as("the subscription is paused for the provider's 4 s").isFalse();
        Attempt b = admitted(life);
        assertThat(b.deployment().id()).isEqualTo("oa");
        held.add(b);
        clock.advanceMillis(4_000);
        assertThat(runtime.governor().hasHeadroom("east-2", TrafficClass.INTERACTIVE, one)).isTrue();
    }

    @Test
    void aProvider429NamingTheSubscriptionLeavesNoFallbackWhenEveryOtherDeploymentIsInIt() {
        start("{ model: gpt-4o, deployments: [east-1, east-2] }");
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();

        AfterAttempt after = a.finish(new AttemptOutcome.Throttled(subscription429()));

        assertThat(after).isEqualTo(AfterAttempt.DONE);
        assertThat(life.fallbackAllowed()).isFalse();
        assertThat(life.fallbackForbiddenBy()).contains("same_provider_scope");
        life.answered(429, Optional.empty(), OptionalLong.empty());
    }
}
