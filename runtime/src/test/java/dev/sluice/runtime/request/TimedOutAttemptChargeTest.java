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
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A provider timeout or a reset before any answer, then a fallback: the provider may or may not
 * have billed the first call, so it is charged once, where it ran, at its estimate for the request
 * and its input (the prompt was sent), and its output, never seen, is refunded; the fallback is
 * charged what it used. Nothing is charged twice, on any bucket of the path, in tokens or money.
 */
class TimedOutAttemptChargeTest {

    /** $2.50 / $10.00 per million tokens on both deployments. */
    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            prices:
              gpt-4o: { input: 2.50, output: 10.00 }
            deployments:
              oa: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 600, input_tpm: 100000, output_tpm: 100000 } }
              az: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: chat, limits: { rpm: 600, input_tpm: 100000, output_tpm: 100000 } }
            profiles:
              chat: { model: gpt-4o, deployments: [oa, az] }
            orgs:
              acme-corp:
                tenants:
                  acme:
                    limits: { daily_tokens: 1000000, daily_cost: 10, input_tpm: 100000, output_tpm: 100000 }
                    teams:
                      search:
                        keys:
                          main: { secret: "sk-test-timeout" }
            """, "timeout.yaml", name -> null);
    private static final Scope ACME = Scope.of(ScopeLevel.TENANT, "acme");

    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    private final RecordedEvents events = new RecordedEvents();
    private final SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, store).clock(clock).events(events).build();

    @AfterEach
    void everyReservationEnded() {
        assertThat(runtime.counters().reservationsOpen()).isZero();
        assertThat(store.openLeases()).isZero();
    }

    /** 1,000 input and 200 output tokens estimated: $0.0025 + $0.0020 = 4,500 micro-dollars. */
    private RequestLifecycle arrive() {
        RequestLifecycle life = runtime.arrive("4bf92f3577b34da6a3ce929d0e0e4736", RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan("4bf92f3577b34da6a3ce929d0e0e4736", "openai.chat",
                new Caller("acme-corp", "acme", "search", "main"), CONFIG.profiles().get("chat"), TrafficClass.INTERACTIVE,
                clock.nanos() + 30_000_000_000L, new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE),
                false));
        return life;
    }

    private static Attempt admitted(RequestLifecycle life) {
        Admission[] out = new Admission[1];
        life.admit(a -> out[0] = a);
        return ((Admission.Admitted) out[0]).attempt();
    }

    private static ProviderSignal ok() {
        return new SignalNormaliser(ProviderKind.OPENAI).normalise(200, name -> List.of(), "", 0);
    }

    private double used(Scope s, Dimension d) {
        var dim = runtime.governor().bucket(s).orElseThrow().of(d).orElseThrow();
        return dim.capacity() - dim.available();
    }

    /** The first attempt on oa ends with {@code failure}, the request moves to az, which answers 900 in and 50 out. */
    private void failedThenAnsweredElsewhere(AttemptOutcome failure, String reason) {
        RequestLifecycle life = arrive();
        Attempt first = admitted(life);
        assertThat(first.deployment().id()).isEqualTo("oa");
        first.sending();

        assertThat(first.finish(failure)).isEqualTo(new AfterAttempt.Reroute(reason));

        Attempt second = admitted(life);
        assertThat(second.deployment().id()).isEqualTo("az");
        second.sending();
        second.finish(new AttemptOutcome.Answered(ok(), new ObservedUsage(900, 50, 0, 0, true)));
        life.answered(200, Optional.empty(), OptionalLong.empty());
    }

    private void chargedOnceAtTheEstimatedPromptThenTheFallbacksUsage() {
        Scope oa = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "oa");
        Scope az = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "az");
        // Where it timed out: the request and the estimated prompt, no output.
        assertThat(used(oa, Dimension.REQUESTS)).isEqualTo(1);
        assertThat(used(oa, Dimension.INPUT_TOKENS)).isEqualTo(1_000);
        assertThat(used(oa, Dimension.OUTPUT_TOKENS)).isZero();
        // Where it ran: what the provider reported.
        assertThat(used(az, Dimension.INPUT_TOKENS)).isEqualTo(900);
        assertThat(used(az, Dimension.OUTPUT_TOKENS)).isEqualTo(50);
        // The caller: each attempt once; 1,000 x $2.50 + (900 x $2.50 + 50 x $10.00) per million = 5,250 micro-dollars.
        assertThat(used(ACME, Dimension.INPUT_TOKENS)).isEqualTo(1_900);
        assertThat(used(ACME, Dimension.OUTPUT_TOKENS)).isEqualTo(50);
        assertThat(used(ACME, Dimension.DAILY_TOKENS)).isEqualTo(1_950);
        assertThat(used(ACME, Dimension.DAILY_COST)).isEqualTo(5_250);
        assertThat(events.attempts.get(0).settlement()).isEqualTo(Settlement.SETTLED);
        assertThat(events.attempts.get(0).usage().input()).isEqualTo(1_000);
        assertThat(events.attempts.get(0).usage().output()).isZero();
        assertThat(events.requests.get(0).usage().costMicros()).isEqualTo(5_250);
    }

    @Test
    void aTimeoutThenAFallbackChargesTheFirstAttemptItsEstimatedPromptOnlyAndTheFallbackWhatItUsed() {
        failedThenAnsweredElsewhere(new AttemptOutcome.Failed(SignalNormaliser.timeout(), Optional.empty()),
                "provider_timeout");

        chargedOnceAtTheEstimatedPromptThenTheFallbacksUsage();
    }

    @Test
    void aResetBeforeAnyAnswerThenAFallbackIsChargedTheSame() {
        failedThenAnsweredElsewhere(new AttemptOutcome.Failed(SignalNormaliser.connectionFailed(), Optional.empty()),
                "connection_reset");

        chargedOnceAtTheEstimatedPromptThenTheFallbacksUsage();
    }
}
