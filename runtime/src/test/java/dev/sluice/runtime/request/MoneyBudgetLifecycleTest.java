package dev.sluice.runtime.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.Price;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Money budgets through the lifecycle: the estimate is priced on the chosen deployment and
 * reserved on the {@code daily_cost} caps with the tokens; the settlement is priced from the
 * provider's usage, cache reads at their own price; a spent budget refuses at once.
 */
class MoneyBudgetLifecycleTest {

    /** $2.50 / $10.00 / $1.25 per million: 1,000 input and 200 output tokens are reserved as $0.0045. */
    private static final String YAML = """
            prices:
              gpt-4o: { input: 2.50, output: 10.00, cache_read: 1.25 }
            deployments:
              oa: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 600 } }
            profiles:
              chat: { deployment: oa, model: gpt-4o }
            orgs:
              acme-corp:
                tenants:
                  acme:
                    limits: { daily_cost: 0.01 }
                    teams:
                      search:
                        keys:
                          main: { secret: "sk-test-budget" }
            """;
    private static final SluiceConfig CONFIG = ConfigLoader.parse(YAML, "budget.yaml", name -> null);
    private static final Scope ACME = Scope.of(ScopeLevel.TENANT, "acme");

    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    private final RecordedEvents events = new RecordedEvents();
    private final SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, store).clock(clock).events(events).build();

    private RequestLifecycle arrive() {
        return arrive(runtime, CONFIG);
    }

    private double budgetLeft() {
        return runtime.governor().bucket(ACME).orElseThrow().of(Dimension.DAILY_COST).orElseThrow().available();
    }

    @Test
    void theEstimateIsReservedAtItsPriceAndTheUsageSettlesAtItsOwn() {
        RequestLifecycle life = arrive();
        Attempt[] a = new Attempt[1];
        life.admit(x -> a[0] = ((Admission.Admitted) x).attempt());

        assertThat(budgetLeft()).isEqualTo(10_000 - 4_500);

        // 600 x 2.50 + 150 x 10.00 + 300 cache reads x 1.25 = 3,375 micro-dollars.
        a[0].finish(new AttemptOutcome.Answered(new SignalNormaliser(ProviderKind.OPENAI).normalise(200,
                name -> List.of(), "", 0), new ObservedUsage(600, 150, 300, 0, true)));
        life.answered(200, java.util.Optional.empty(), java.util.OptionalLong.empty());

        assertThat(budgetLeft()).isEqualTo(10_000 - 3_375);
        RequestEvent e = events.requests.get(0);
        assertThat(e.estimate().costMicros()).isEqualTo(4_500);
        assertThat(e.usage().costMicros()).isEqualTo(3_375);
    }

    @Test
    void aRequestBeyondWhatIsLeftOfTheBudgetIsRefusedAtOnceAndNotRetryable() {
        for (int i = 0; i < 2; i++) {
            answerAsEstimated(arrive());
        }
        // $0.0090 of $0.0100 spent: another $0.0045 does not fit.
        Admission.Refused r = refusedBudget(arrive());
        assertThat(r.rejection().message()).startsWith("tenant:acme has spent its daily budget of $0.01 ($0.001 left, "
                + "this request may cost up to $0.0045); it resets in ");
        assertThat(budgetLeft()).isEqualTo(1_000);
    }

    @Test
    void aMonthlyBudgetIsReservedAndSettledBesideTheDailyOneAndRefusesWhenSpent() {
        SluiceConfig c = ConfigLoader.parse(YAML.replace("daily_cost: 0.01", "daily_cost: 1, monthly_cost: 0.01"),
                "budget.yaml", name -> null);
        SluiceRuntime monthly = SluiceRuntime.builder(c, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .events(events).build();
        for (int day = 0; day < 2; day++) {
            answerAsEstimated(arrive(monthly, c));
            clock.advance(java.time.Duration.ofDays(1));
        }
        // $0.0090 of the month's $0.0100 spent over two days; today's dollar is untouched.
        assertThat(left(monthly, Dimension.DAILY_COST)).isEqualTo(1_000_000);
        assertThat(left(monthly, Dimension.MONTHLY_COST)).isEqualTo(1_000);
        Admission.Refused r = refusedBudget(arrive(monthly, c));
        // 2026-01-03T00:00Z: February is 29 days away.
        assertThat(r.rejection().retryAfterMillis()).isEqualTo(29 * 86_400_000L);
        assertThat(r.rejection().message()).isEqualTo("tenant:acme has spent its monthly budget of $0.01 ($0.001 left, "
                + "this request may cost up to $0.0045); it resets in 29.0 days.");
        assertThat(left(monthly, Dimension.MONTHLY_COST)).isEqualTo(1_000);
    }

    private RequestLifecycle arrive(SluiceRuntime rt, SluiceConfig c) {
        RequestLifecycle life = rt.arrive("4bf92f3577b34da6a3ce929d0e0e4736", RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan("4bf92f3577b34da6a3ce929d0e0e4736", "openai.chat",
                new Caller("acme-corp", "acme", "search", "main"), c.profiles().get("chat"), TrafficClass.INTERACTIVE,
                clock.nanos() + 30_000_000_000L, new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE),
                false));
        return life;
    }

    /** The request's admission, which must be a refusal on a tenant's spent budget, not to be retried. */
    private static Admission.Refused refusedBudget(RequestLifecycle life) {
        Admission[] out = new Admission[1];
        life.admit(x -> out[0] = x);
        Admission.Refused r = (Admission.Refused) out[0];
        assertThat(r.rejection().decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        assertThat(r.rejection().code()).isEqualTo("tenant_budget_exhausted");
        assertThat(r.rejection().retryable()).isFalse();
        return r;
    }

    /** Admits the request and answers it with exactly its estimated 1,000 input and 200 output tokens. */
    private static void answerAsEstimated(RequestLifecycle life) {
        Attempt[] a = new Attempt[1];
        life.admit(x -> a[0] = ((Admission.Admitted) x).attempt());
        a[0].finish(new AttemptOutcome.Answered(new SignalNormaliser(ProviderKind.OPENAI).normalise(200,
                name -> List.of(), "", 0), new ObservedUsage(1_000, 200, 0, 0, true)));
        life.answered(200, java.util.Optional.empty(), java.util.OptionalLong.empty());
    }

    private static double left(SluiceRuntime rt, Dimension d) {
        return rt.governor().bucket(ACME).orElseThrow().of(d).orElseThrow().available();
    }

    @Test
    void pricesAreReadInDollarsPerMillionAndCacheReadsDefaultToTheInputPrice() {
        SluiceConfig c = ConfigLoader.parse(YAML.replace("{ input: 2.50, output: 10.00, cache_read: 1.25 }",
                "{ input: 0.15, output: 0.60 }"), "budget.yaml", name -> null);

        assertThat(c.prices().of("oa", "gpt-4o")).isEqualTo(new Price(0.15, 0.60, 0.15));
        assertThat(c.prices().of("oa", "unpriced")).isEqualTo(Price.FREE);
        assertThat(c.orgs().get("acme-corp").tenants().get("acme").limits().get(Dimension.DAILY_COST).orElseThrow()
                .amount()).isEqualTo(10_000);
    }

    @Test
    void aBadPriceOrBudgetIsRefusedWithItsPath() {
        assertThatThrownBy(() -> ConfigLoader.parse(YAML.replace("input: 2.50", "input: -1"), "budget.yaml",
                name -> null)).isInstanceOf(ConfigException.class)
                .hasMessage("prices.gpt-4o.input: -1.0 (expected: dollars per million tokens, a number from 0 to 10000)");
        assertThatThrownBy(() -> ConfigLoader.parse(YAML.replace(", cache_read: 1.25", ", cached: 1.25"),
                "budget.yaml", name -> null)).isInstanceOf(ConfigException.class).hasMessageContaining("prices.gpt-4o.cached");
        assertThatThrownBy(() -> ConfigLoader.parse(YAML.replace("input: 2.50, ", ""), "budget.yaml",
                name -> null)).isInstanceOf(ConfigException.class).hasMessageContaining("prices.gpt-4o.input");
        assertThatThrownBy(() -> ConfigLoader.parse(YAML.replace("daily_cost: 0.01", "daily_cost: 0"), "budget.yaml",
                name -> null)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("daily_cost: 0.0 (expected: dollars, more than 0 and at most 1000000)");
    }
}
