package dev.sluice.runtime.request;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RecordingSink;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request whose profile lists two deployments, without sockets: where each attempt runs, when
 * it moves, and that every reservation is ended before the next is asked for.
 */
class FallbackLifecycleTest {

    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              # 60 rpm: a burst of one request a second at the deployment.
              oa: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 60 } }
              az: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: chat, limits: { rpm: 600 } }
            profiles:
              chat: { model: gpt-4o, deployments: [oa, az] }
            orgs:
              acme-corp:
                tenants:
                  acme:
                    teams:
                      search:
                        keys:
                          main: { secret: "sk-test-fallback" }
            """, "fallback.yaml", name -> null);
    private static final SignalNormaliser OPENAI = new SignalNormaliser(ProviderKind.OPENAI);

    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    private final RecordingSink events = new RecordingSink();
    private final List<RequestEvent> requests = events.requests;
    private final List<AttemptEvent> attempts = events.attempts;
    private final SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, store).clock(clock).events(events).build();
    private int arrived;

    @AfterEach
    void everyReservationEnded() {
        assertThat(runtime.counters().reservationsOpen()).as(runtime.counters().toString()).isZero();
        assertThat(store.openLeases()).isZero();
    }

    private RequestLifecycle arrive(TrafficClass c) {
        String trace = "trace-" + (++arrived);
        RequestLifecycle life = runtime.arrive(trace, RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan(trace, "openai.chat", new Caller("acme-corp", "acme", "search", "main"),
                CONFIG.profiles().get("chat"), c, clock.nanos() + 30_000_000_000L,
                new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE), false));
        return life;
    }

    private static Attempt admitted(RequestLifecycle life) {
        Admission[] out = new Admission[1];
        life.admit(a -> out[0] = a);
        assertThat(out[0]).isInstanceOf(Admission.Admitted.class);
        return ((Admission.Admitted) out[0]).attempt();
    }

    private static ProviderSignal answer(int status, Map<String, String> headers) {
        return OPENAI.normalise(status, name -> headers.containsKey(name.toLowerCase()) ? List.of(headers.get(
                name.toLowerCase())) : List.of(), "", 0);
    }

    private static void answer(RequestLifecycle life, Attempt a) {
        a.sending();
        a.finish(new AttemptOutcome.Answered(answer(200, Map.of()), new ObservedUsage(900, 50, 0, 0, true)));
        life.answered(200, Optional.empty(), OptionalLong.empty());
    }

    /** Admits what oa (1 request a second) and az (10) hold now, and keeps it held. */
    private Map<RequestLifecycle, Attempt> fillBoth() {
        Map<RequestLifecycle, Attempt> held = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 11; i++) {
            RequestLifecycle l = arrive(TrafficClass.INTERACTIVE);
            held.put(l, admitted(l));
        }
        return held;
    }

    @Test
    void theFirstDeploymentTakesTheRequestWhileItHasHeadroom() {
        RequestLifecycle life = arrive(TrafficClass.INTERACTIVE);
        Attempt a = admitted(life);

        assertThat(a.deployment().id()).isEqualTo("oa");
        assertThat(life.fallbackReason()).isEmpty();
        answer(life, a);
        assertThat(requests.get(0).fallback()).isEmpty();
    }

    @Test
    void aRequestTheFirstDeploymentHasNoRoomForRunsOnTheNextByItsBuckets() {
        RequestLifecycle first = arrive(TrafficClass.INTERACTIVE);
        Attempt held = admitted(first); // oa's one request this second

        RequestLifecycle second = arrive(TrafficClass.INTERACTIVE);
        Attempt a = admitted(second);

        assertThat(held.deployment().id()).isEqualTo("oa");
        assertThat(a.deployment().id()).isEqualTo("az");
        assertThat(second.fallbackReason()).contains("headroom");
        answer(second, a);
        answer(first, held);
        assertThat(requests.get(0).deployment()).contains("az");
        assertThat(requests.get(0).fallback()).contains("headroom");
        assertThat(runtime.counters().localRejections()).isZero();
    }

    @Test
    void aProvider429MovesTheNextAttemptAfterEndingTheFirstReservation() {
        RequestLifecycle life = arrive(TrafficClass.INTERACTIVE);
        Attempt a = admitted(life);
        a.sending();

        AfterAttempt after = a.finish(new AttemptOutcome.Throttled(answer(429, Map.of("retry-after-ms", "20000"))));

        assertThat(after).isEqualTo(new AfterAttempt.Reroute("provider_429"));
        assertThat(store.openLeases()).as("never held on two deployments at once").isZero();
        Attempt b = admitted(life);
        assertThat(b.deployment().id()).isEqualTo("az");
        assertThat(b.number()).isEqualTo(2);
        answer(life, b);

        assertThat(attempts).extracting(AttemptEvent::deployment).containsExactly("oa", "az");
        assertThat(attempts).extracting(AttemptEvent::result).containsExactly(AttemptResult.THROTTLED, AttemptResult.ANSWERED);
        assertThat(attempts.get(0).settlement()).isEqualTo(Settlement.SETTLED);
        assertThat(attempts.get(0).usage()).isEqualTo(dev.sluice.runtime.event.TokenCounts.NONE);
        RequestEvent r = requests.get(0);
        assertThat(r.deployment()).contains("az");
        assertThat(r.fallback()).contains("provider_429");
        assertThat(r.attempts()).isEqualTo(2);
        assertThat(runtime.counters().reservationsSettled()).isEqualTo(2);
        assertThat(runtime.counters().gatewayRetries()).as("a move is not a retry on the same deployment").isZero();
    }

    @Test
    void theFailedDeploymentsCooldownKeepsTheNextRequestsOffIt() {
        RequestLifecycle life = arrive(TrafficClass.INTERACTIVE);
        Attempt a = admitted(life);
        a.sending();
        a.finish(new AttemptOutcome.Throttled(answer(429, Map.of("retry-after-ms", "20000"))));
        answer(life, admitted(life));
        clock.advanceMillis(2_000); // oa's own bucket has refilled; its cooldown has not ended

        RequestLifecycle next = arrive(TrafficClass.INTERACTIVE);
        Attempt b = admitted(next);

        assertThat(b.deployment().id()).isEqualTo("az");
        assertThat(next.fallbackReason()).contains("headroom");
        answer(next, b);
    }

    /**
     * Ends a request's first attempt (on oa) with {@code outcome}, expects the move for
     * {@code reason} with nothing held in between, and answers it on az.
     */
    private void movedBy(AttemptOutcome outcome, String reason) {
        RequestLifecycle life = arrive(TrafficClass.INTERACTIVE);
        Attempt a = admitted(life);
        a.sending();

        AfterAttempt after = a.finish(outcome);

        assertThat(after).isEqualTo(new AfterAttempt.Reroute(reason));
        assertThat(store.openLeases()).as("never held on two deployments at once").isZero();
        Attempt b = admitted(life);
        assertThat(b.deployment().id()).isEqualTo("az");
        answer(life, b);
        assertThat(attempts).extracting(AttemptEvent::deployment).containsExactly("oa", "az");
        assertThat(requests.get(0).fallback()).contains(reason);
        assertThat(requests.get(0).deployment()).contains("az");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {500, 502, 503, 504, 529})
    void aServerFaultMovesTheNextAttemptChargingTheFirstOnlyTheRequest(int status) {
        movedBy(new AttemptOutcome.Failed(answer(status, Map.of()), Optional.empty()), "provider_5xx");

        assertThat(attempts.get(0).settlement()).isEqualTo(Settlement.SETTLED);
        assertThat(attempts.get(0).usage()).isEqualTo(dev.sluice.runtime.event.TokenCounts.NONE);
    }

    @Test
    void aTimeoutMovesTheNextAttemptChargingTheFirstTheEstimatedPromptWhereItRan() {
        movedBy(new AttemptOutcome.Failed(SignalNormaliser.timeout(), Optional.empty()), "provider_timeout");

        assertThat(attempts).extracting(AttemptEvent::result)
                .containsExactly(AttemptResult.FAILED, AttemptResult.ANSWERED);
        assertThat(attempts.get(0).settlement()).isEqualTo(Settlement.SETTLED);
        // The provider read the prompt: the first deployment is charged the estimated 1,000 input tokens, no output.
        assertThat(attempts.get(0).usage().input()).isEqualTo(1_000);
        assertThat(attempts.get(0).usage().output()).isZero();
        assertThat(attempts.get(1).usage().input()).isEqualTo(900);
    }

    @Test
    void aConnectionResetBeforeAnyAnswerMovesTheNextAttempt() {
        movedBy(new AttemptOutcome.Failed(SignalNormaliser.connectionFailed(), Optional.empty()), "connection_reset");

        assertThat(attempts.get(0).usage().input()).isEqualTo(1_000);
    }

    @Test
    void anUnreachableDeploymentMovesTheNextAttemptAndItsReservationIsReleasedWhole() {
        movedBy(new AttemptOutcome.NeverSent(SignalNormaliser.connectionFailed()), "unreachable");

        assertThat(attempts.get(0).settlement()).isEqualTo(Settlement.RELEASED);
        assertThat(runtime.counters().reservationsReleased()).isEqualTo(1);
    }

    @Test
    void aBrokenStreamAfterPartOfTheAnswerDoesNotMove() {
        RequestLifecycle life = arrive(TrafficClass.INTERACTIVE);
        Attempt a = admitted(life);
        a.sending();

        AfterAttempt after = a.finish(new AttemptOutcome.Failed(SignalNormaliser.connectionFailed(),
                Optional.of(new ObservedUsage(0, 30, 0, 0, false))));
        life.answered(200, Optional.empty(), OptionalLong.empty());

        assertThat(after).isEqualTo(AfterAttempt.DONE);
        assertThat(attempts).hasSize(1);
    }

    @Test
    void aFaultAfterTheDeadlineDoesNotMove() {
        RequestLifecycle life = arrive(TrafficClass.INTERACTIVE);
        Attempt a = admitted(life);
        a.sending();
        clock.advanceMillis(31_000); // past the plan's 30-second deadline

        AfterAttempt after = a.finish(new AttemptOutcome.Failed(SignalNormaliser.timeout(), Optional.empty()));
        life.answered(504, Optional.of("upstream_timeout"), OptionalLong.empty());

        assertThat(after).isEqualTo(AfterAttempt.DONE);
        assertThat(attempts).hasSize(1);
    }

    @Test
    void aBatchRequestNeverFallsBackAndItsRefusalSaysWhichRuleForbadeIt() {
        RequestLifecycle life = arrive(TrafficClass.BATCH);
        Attempt a = admitted(life);
        a.sending();

        AfterAttempt after = a.finish(new AttemptOutcome.Throttled(answer(429, Map.of("retry-after-ms", "20000"))));
        life.answered(429, Optional.of("provider_rate_limited"), OptionalLong.of(20_000));

        assertThat(after).isNotInstanceOf(AfterAttempt.Reroute.class);
        assertThat(life.fallbackAllowed()).isFalse();
        assertThat(life.fallbackForbiddenBy()).contains("class");
        assertThat(attempts).extracting(AttemptEvent::deployment).containsExactly("oa");
    }

    @Test
    void aRequestThatMayWaitForItsFirstChoiceWaitsThereRatherThanMove() {
        Map<RequestLifecycle, Attempt> held = fillBoth();
        RequestLifecycle life = arrive(TrafficClass.CRITICAL);
        Admission[] out = new Admission[1];
        life.admit(x -> out[0] = x);

        // Critical may wait 5 s: oa refills its request in 1 s, so it waits there, never trying az.
        assertThat(out[0]).isNull();
        clock.advanceMillis(1_000);
        runtime.governor().onTimer();
        assertThat(((Admission.Admitted) out[0]).attempt().deployment().id()).isEqualTo("oa");
        answer(life, ((Admission.Admitted) out[0]).attempt());
        held.forEach(FallbackLifecycleTest::answer);
    }

    @Test
    void aLocalRefusalOnTheFirstChoiceMovesToTheNextWhichDecidesByItsOwnBuckets() {
        Map<RequestLifecycle, Attempt> held = fillBoth();
        // Interactive waits at most 300 ms: oa's next request is 1 s away (refused), az's 100 ms (waits there).
        RequestLifecycle life = arrive(TrafficClass.INTERACTIVE);
        Admission[] out = new Admission[1];
        life.admit(x -> out[0] = x);
        assertThat(out[0]).isNull();

        clock.advanceMillis(100);
        runtime.governor().onTimer();

        Attempt a = ((Admission.Admitted) out[0]).attempt();
        assertThat(a.deployment().id()).isEqualTo("az");
        assertThat(life.fallbackReason()).contains("local_wait");
        answer(life, a);
        assertThat(runtime.counters().localRejections()).as("a move is not a refusal").isZero();
        held.forEach(FallbackLifecycleTest::answer);
    }

    @Test
    void aRefusalByALimitOnEveryPathDoesNotMoveAndSaysSo() {
        SluiceConfig tight = ConfigLoader.parse("""
                deployments:
                  oa: { kind: openai, base_url: "http://127.0.0.1:1" }
                  az: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: chat }
                profiles:
                  chat: { model: gpt-4o, deployments: [oa, az] }
                orgs:
                  acme-corp:
                    tenants:
                      acme:
                        limits: { input_tpm: 500 }
                        teams: { search: { keys: { main: { secret: "sk-test-fallback" } } } }
                """, "tight.yaml", name -> null);
        SluiceRuntime rt = SluiceRuntime.builder(tight, store).clock(clock).build();
        RequestLifecycle life = rt.arrive("t", RequestThread.inPlace());
        life.planned(new RequestPlan("t", "openai.chat", new Caller("acme-corp", "acme", "search", "main"),
                tight.profiles().get("chat"), TrafficClass.INTERACTIVE, clock.nanos() + 30_000_000_000L,
                new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE), false));
        Admission[] out = new Admission[1];
        life.admit(x -> out[0] = x);
        life.answered(429, Optional.empty(), OptionalLong.empty());

        assertThat(out[0]).isInstanceOf(Admission.Refused.class);
        assertThat(life.fallbackAllowed()).isFalse();
        assertThat(life.fallbackForbiddenBy()).contains("shared_limit");
    }
}
