package dev.sluice.runtime.request;

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
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request the provider refuses as invalid (400, 404, 422) is charged nothing it did not take:
 * no tokens, no money, and the request itself only where the provider counts it (OpenAI and Azure
 * count failed requests; Anthropic and Gemini are not known to). Every other dimension of every
 * bucket on its path is given back at settlement. The request itself is given back at most
 * {@code server.invalid_refunds_per_minute} times a minute per tenant (10 by default); beyond that it
 * stays charged.
 */
class InvalidRequestChargeTest {

    private static final String YAML = """
            prices:
              m: { input: 2.50, output: 10.00 }
            deployments:
              d: { kind: %s, base_url: "http://127.0.0.1:1", limits: { rpm: 600, input_tpm: 100000 } }
            profiles:
              chat: { deployment: d, model: m }
            orgs:
              acme-corp:
                tenants:
                  acme:
                    limits: { rpm: 50, daily_requests: 100, input_tpm: 50000, daily_cost: 1 }
                    teams:
                      search:
                        keys:
                          main: { secret: "sk-test-invalid" }
            """;
    private static final int PER_MINUTE = 10;
    private static final Scope ACME = Scope.of(ScopeLevel.TENANT, "acme");
    private static final Scope DEPLOYMENT = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "d");

    private final FakeClock clock = new FakeClock();
    private final RecordedEvents events = new RecordedEvents();

    private SluiceRuntime runtime(String kind) {
        return runtime(kind, "");
    }

    private SluiceRuntime runtime(String kind, String server) {
        SluiceConfig c = ConfigLoader.parse(server + YAML.formatted(kind), "invalid.yaml", name -> null);
        return SluiceRuntime.builder(c, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock).events(events).build();
    }

    /** One request through {@code rt}, refused by the provider with {@code status} after it was sent. */
    private void refusedWith(SluiceRuntime rt, int status) {
        RequestLifecycle life = rt.arrive("4bf92f3577b34da6a3ce929d0e0e4736", RequestThread.inPlace());
        life.operation("anthropic.messages");
        life.planned(new RequestPlan("4bf92f3577b34da6a3ce929d0e0e4736", "anthropic.messages",
                new Caller("acme-corp", "acme", "search", "main"), rt.config().profiles().get("chat"),
                TrafficClass.INTERACTIVE, clock.nanos() + 30_000_000_000L,
                new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE), false));
        Attempt[] a = new Attempt[1];
        life.admit(x -> a[0] = ((Admission.Admitted) x).attempt());
        a[0].sending();
        a[0].finish(new AttemptOutcome.Refused(signal(status)));
        life.answered(status, Optional.empty(), OptionalLong.empty());
        assertThat(rt.counters().reservationsOpen()).isZero();
    }

    private static ProviderSignal signal(int status) {
        return new SignalNormaliser(ProviderKind.ANTHROPIC).normalise(status, name -> List.of(),
                "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}", 0);
    }

    private static double left(SluiceRuntime rt, Scope s, Dimension d) {
        return rt.governor().bucket(s).orElseThrow().of(d).orElseThrow().available();
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 404, 422})
    void onAProviderThatDoesNotCountItEverythingIsGivenBackTheRequestToo(int status) {
        SluiceRuntime rt = runtime("anthropic");
        for (int i = 0; i < PER_MINUTE; i++) {
            refusedWith(rt, status);
        }

        assertThat(left(rt, ACME, Dimension.REQUESTS)).as("the tenant's minute").isEqualTo(50);
        assertThat(left(rt, ACME, Dimension.DAILY_REQUESTS)).isEqualTo(100);
        assertThat(left(rt, ACME, Dimension.INPUT_TOKENS)).isEqualTo(50_000);
        assertThat(left(rt, ACME, Dimension.DAILY_COST)).isEqualTo(1_000_000);
        assertThat(left(rt, DEPLOYMENT, Dimension.REQUESTS)).isEqualTo(10);
        assertThat(events.attempts).allSatisfy(e -> {
            assertThat(e.settlement()).isEqualTo(Settlement.SETTLED);
            assertThat(e.usage()).isEqualTo(TokenCounts.NONE);
        });
    }

    @Test
    void beyondTheTenantsAllowanceAMinuteAnInvalidRequestKeepsItsRequestCharged() {
        // Else a client could send invalid requests to a provider that does not count them without limit.
        SluiceRuntime rt = runtime("anthropic");
        for (int i = 0; i < PER_MINUTE + 5; i++) {
            refusedWith(rt, 400);
        }

        assertThat(left(rt, ACME, Dimension.REQUESTS)).as("five beyond the allowance").isEqualTo(45);
        assertThat(left(rt, ACME, Dimension.DAILY_REQUESTS)).isEqualTo(95);
        assertThat(left(rt, ACME, Dimension.INPUT_TOKENS)).as("tokens are still given back").isEqualTo(50_000);
        assertThat(left(rt, ACME, Dimension.DAILY_COST)).isEqualTo(1_000_000);
    }

    @Test
    void theAllowanceComesBackAMinuteLater() {
        SluiceRuntime rt = runtime("anthropic");
        for (int i = 0; i < PER_MINUTE; i++) {
            refusedWith(rt, 400);
        }
        clock.advance(java.time.Duration.ofMinutes(1));
        for (int i = 0; i < PER_MINUTE; i++) {
            refusedWith(rt, 422);
        }

        assertThat(left(rt, ACME, Dimension.DAILY_REQUESTS)).as("every one refunded").isEqualTo(100);
        refusedWith(rt, 400);
        assertThat(left(rt, ACME, Dimension.DAILY_REQUESTS)).as("the second minute's allowance used up").isEqualTo(99);
    }

    @Test
    void eachTenantHasItsOwnAllowance() {
        InvalidRefunds refunds = InvalidRefunds.local();
        for (int i = 0; i < PER_MINUTE; i++) {
            assertThat(refunds.refund("acme-corp", "acme", PER_MINUTE, 0)).isTrue();
        }
        assertThat(refunds.refund("acme-corp", "acme", PER_MINUTE, 1)).isFalse();
        assertThat(refunds.refund("acme-corp", "other", PER_MINUTE, 1)).isTrue();
        assertThat(refunds.refund("acme-corp", "acme", PER_MINUTE, java.util.concurrent.TimeUnit.SECONDS.toNanos(60)))
                .isTrue();
    }

    @Test
    void theAllowanceIsTheConfiguredOne() {
        SluiceRuntime rt = runtime("anthropic", "server: { invalid_refunds_per_minute: 2 }\n");
        for (int i = 0; i < 5; i++) {
            refusedWith(rt, 400);
        }

        assertThat(left(rt, ACME, Dimension.REQUESTS)).as("three beyond an allowance of two").isEqualTo(47);
        assertThat(left(rt, ACME, Dimension.DAILY_REQUESTS)).isEqualTo(97);
    }

    @Test
    void anAllowanceOfZeroRefundsNoRequest() {
        SluiceRuntime rt = runtime("anthropic", "server: { invalid_refunds_per_minute: 0 }\n");
        refusedWith(rt, 400);

        assertThat(left(rt, ACME, Dimension.DAILY_REQUESTS)).isEqualTo(99);
        assertThat(left(rt, ACME, Dimension.INPUT_TOKENS)).as("tokens are still given back").isEqualTo(50_000);
    }

    @Test
    void onAProviderThatCountsItOnlyTheRequestStaysCharged() {
        SluiceRuntime rt = runtime("openai");
        refusedWith(rt, 400);

        assertThat(left(rt, ACME, Dimension.REQUESTS)).isEqualTo(49);
        assertThat(left(rt, ACME, Dimension.DAILY_REQUESTS)).isEqualTo(99);
        assertThat(left(rt, ACME, Dimension.INPUT_TOKENS)).isEqualTo(50_000);
        assertThat(left(rt, ACME, Dimension.DAILY_COST)).isEqualTo(1_000_000);
    }

    @Test
    void anotherRefusalKeepsTheRequestWhereverItRan() {
        // A 413 (or 401, 403, 409) is not the request's own mistake of form: the provider read it.
        SluiceRuntime rt = runtime("anthropic");
        refusedWith(rt, 413);

        assertThat(left(rt, ACME, Dimension.REQUESTS)).isEqualTo(49);
        assertThat(left(rt, ACME, Dimension.INPUT_TOKENS)).isEqualTo(50_000);
    }
}
