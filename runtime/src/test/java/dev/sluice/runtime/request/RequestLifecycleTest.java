package dev.sluice.runtime.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.estimate.Tokenizer;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.OneRouteConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RequestEvent;
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
 * The request lifecycle without sockets, an outcome per test: every outcome ends with exactly one
 * settlement or release and one event per attempt and per request; an answer (success or 429) is
 * fed to adaptive control once, which the controller's count of answers shows.
 */
class RequestLifecycleTest {

    private static final SluiceConfig CONFIG = OneRouteConfig.of("limits: { rpm: 600, input_tpm: 100000 }",
            "cache_read_counts_against_input_limit: false", "sk-test-lifecycle");
    private static final SignalNormaliser OPENAI = new SignalNormaliser(ProviderKind.OPENAI);

    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    private final RecordedEvents events = new RecordedEvents();
    private final List<RequestEvent> requests = events.requests;
    private final List<AttemptEvent> attempts = events.attempts;
    private final SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, store).clock(clock).events(events).build();

    @AfterEach
    void everyReservationEndedAndEveryRequestAnsweredOnce() {
        assertThat(runtime.counters().inFlight()).as(runtime.counters().toString()).isZero();
        assertThat(runtime.counters().reservationsOpen()).as(runtime.counters().toString()).isZero();
        assertThat(store.openLeases()).isZero();
        assertThat(requests).hasSize(1);
    }

    private RequestLifecycle arrive() {
        RequestLifecycle life = runtime.arrive("4bf92f3577b34da6a3ce929d0e0e4736", RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan("4bf92f3577b34da6a3ce929d0e0e4736", "openai.chat",
                new Caller("acme-corp", "acme", "search", "main"), CONFIG.profiles().get("chat"), TrafficClass.INTERACTIVE,
                clock.nanos() + 30_000_000_000L, new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE),
                false));
        return life;
    }

    private Attempt admitted(RequestLifecycle life) {
        Attempt[] out = new Attempt[1];
        life.admit(a -> out[0] = ((Admission.Admitted) a).attempt());
        assertThat(out[0]).isNotNull();
        return out[0];
    }

    private long answersFed() {
        return runtime.adaptive().orElseThrow().find("oa").orElseThrow().snapshot().answers();
    }

    private static ProviderSignal answer(int status, Map<String, String> headers, String body) {
        return OPENAI.normalise(status, name -> headers.containsKey(name.toLowerCase()) ? List.of(headers.get(
                name.toLowerCase())) : List.of(), body, 0);
    }

    @Test
    void anAnswerIsSettledWithTheProvidersUsageFedOnceAndRecorded() {
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        clock.advanceMillis(40);
        a.responseHead();
        a.firstContent();
        clock.advanceMillis(10);

        AfterAttempt after = a.finish(new AttemptOutcome.Answered(answer(200, Map.of(), ""),
                new ObservedUsage(600, 150, 300, 0, true)));
        life.answered(200, Optional.empty(), OptionalLong.empty());

        assertThat(after).isEqualTo(AfterAttempt.DONE);
        assertThat(runtime.counters().reservationsSettled()).isEqualTo(1);
        assertThat(answersFed()).isEqualTo(1);
        AttemptEvent e = attempts.get(0);
        assertThat(e.result()).isEqualTo(AttemptResult.ANSWERED);
        assertThat(e.settlement()).isEqualTo(Settlement.SETTLED);
        assertThat(e.usage().input()).isEqualTo(600);
        assertThat(e.usage().cacheRead()).isEqualTo(300);
        assertThat(e.usageReported()).isTrue();
        assertThat(e.latencyNanos()).isEqualTo(50_000_000L);
        assertThat(e.timeToFirstTokenNanos()).hasValue(40_000_000L);
        RequestEvent r = requests.get(0);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.decision()).isEqualTo("admitted");
        assertThat(r.caller()).contains(new Caller("acme-corp", "acme", "search", "main"));
        assertThat(r.deployment()).contains("oa");
        assertThat(r.estimate().input()).isEqualTo(1_000);
        assertThat(r.usage().output()).isEqualTo(150);
        assertThat(r.attemptEvents()).containsExactly(e);
        // Cache reads do not count against this profile's input limit: 600 of the 1,000 reserved are charged.
        assertThat(runtime.estimator().stats(CONFIG.profiles().get("chat").estimatorProfile(),
                RequestPlan.estimateKey(CONFIG.profiles().get("chat"), TrafficClass.INTERACTIVE)).ratioSamples()).isEqualTo(1);
    }

    @Test
    void anAnswerWrittenBeforeItsAttemptEndsIsRecordedWhenTheAttemptEnds() {
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        life.answered(200, Optional.empty(), OptionalLong.empty());
        assertThat(requests).isEmpty();
        assertThat(runtime.counters().inFlight()).isEqualTo(1);

        a.finish(new AttemptOutcome.Answered(answer(200, Map.of(), ""), new ObservedUsage(900, 10, 0, 0, true)));

        assertThat(requests.get(0).attemptEvents()).hasSize(1);
    }

    @Test
    void aThrottledAttemptWithAHintInsideTheBudgetIsRetriedHoldingItsReservation() {
        for (int i = 0; i < 10; i++) {
            runtime.retryBudget("oa").firstAttempt(); // ten earlier requests earned one retry
        }
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        AfterAttempt after = a.finish(new AttemptOutcome.Throttled(answer(429, Map.of("retry-after-ms", "120"),
                "{\"error\":{\"type\":\"requests\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached\"}}")));

        assertThat(after).isInstanceOf(AfterAttempt.Retry.class);
        AfterAttempt.Retry retry = (AfterAttempt.Retry) after;
        assertThat(retry.delayMillis()).isEqualTo(120);
        assertThat(store.openLeases()).as("still held").isEqualTo(1);
        assertThat(attempts.get(0).settlement()).isEqualTo(Settlement.HELD);
        assertThat(attempts.get(0).retryDelayMillis()).hasValue(120);

        clock.advanceMillis(120);
        retry.next().sending();
        retry.next().finish(new AttemptOutcome.Answered(answer(200, Map.of(), ""), new ObservedUsage(900, 50, 0, 0, true)));
        life.answered(200, Optional.empty(), OptionalLong.empty());

        assertThat(runtime.counters().gatewayRetries()).isEqualTo(1);
        assertThat(runtime.counters().reservationsSettled()).isEqualTo(1);
        assertThat(answersFed()).isEqualTo(2);
        assertThat(requests.get(0).attempts()).isEqualTo(2);
        assertThat(attempts).extracting(AttemptEvent::attempt).containsExactly(1, 2);
    }

    @Test
    void aThrottledAttemptWithoutRetryBudgetIsSettledWithNoTokens() {
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        AfterAttempt after = a.finish(new AttemptOutcome.Throttled(answer(429, Map.of("retry-after-ms", "120"), "")));
        life.answered(429, Optional.of("provider_rate_limited"), OptionalLong.of(120));

        assertThat(after).isEqualTo(AfterAttempt.DONE);
        assertThat(runtime.counters().providerRejections()).isEqualTo(1);
        assertThat(attempts.get(0).result()).isEqualTo(AttemptResult.THROTTLED);
        assertThat(attempts.get(0).usage().input()).isZero();
        assertThat(requests.get(0).status()).isEqualTo(429);
    }

    @Test
    void aServerFaultThatProducedNothingIsRetriedWithinTheBudget() {
        for (int i = 0; i < 20; i++) {
            runtime.retryBudget("oa").firstAttempt();
        }
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        // A 503 that asks for an hour: the retry is the probe, after the gateway's own short backoff.
        AfterAttempt first = a.finish(new AttemptOutcome.Failed(answer(503, Map.of("retry-after", "3600"), ""),
                Optional.empty()));
        assertThat(first).isInstanceOf(AfterAttempt.Retry.class);
        assertThat(((AfterAttempt.Retry) first).delayMillis()).isEqualTo(250);

        Attempt second = ((AfterAttempt.Retry) first).next();
        second.sending();
        AfterAttempt again = second.finish(new AttemptOutcome.Failed(answer(529, Map.of(), ""), Optional.empty()));
        // The second retry would wait 500 ms, more than the interactive class may wait.
        assertThat(again).isEqualTo(AfterAttempt.DONE);
        life.answered(529, Optional.empty(), OptionalLong.empty());

        assertThat(runtime.counters().gatewayRetries()).isEqualTo(1);
        assertThat(attempts).extracting(AttemptEvent::settlement).containsExactly(Settlement.HELD, Settlement.SETTLED);
        assertThat(attempts.get(1).usage()).isEqualTo(dev.sluice.runtime.event.TokenCounts.NONE);
    }

    @Test
    void aFaultAfterTheAnswerStartedIsNotRetried() {
        for (int i = 0; i < 20; i++) {
            runtime.retryBudget("oa").firstAttempt();
        }
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        life.responseStarted(200);
        AfterAttempt after = a.finish(new AttemptOutcome.Failed(answer(503, Map.of(), ""), Optional.empty()));
        life.answered(200, Optional.empty(), OptionalLong.empty());

        assertThat(after).isEqualTo(AfterAttempt.DONE);
        assertThat(runtime.counters().gatewayRetries()).isZero();
    }

    @Test
    void aRefusedRequestIsChargedNoTokens() {
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        a.finish(new AttemptOutcome.Refused(answer(400, Map.of(), "{\"error\":{\"message\":\"bad\"}}")));
        life.answered(400, Optional.empty(), OptionalLong.empty());

        assertThat(attempts.get(0).result()).isEqualTo(AttemptResult.REFUSED);
        assertThat(attempts.get(0).settlement()).isEqualTo(Settlement.SETTLED);
        assertThat(attempts.get(0).usage()).isEqualTo(dev.sluice.runtime.event.TokenCounts.NONE);
    }

    @Test
    void aTimeoutAfterSendingIsChargedTheEstimatedInput() {
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        a.finish(new AttemptOutcome.Failed(SignalNormaliser.timeout(), Optional.empty()));
        life.answered(504, Optional.of("upstream_timeout"), OptionalLong.empty());

        assertThat(attempts.get(0).result()).isEqualTo(AttemptResult.FAILED);
        assertThat(attempts.get(0).usage().input()).isEqualTo(1_000);
        assertThat(attempts.get(0).usageReported()).isFalse();
        assertThat(requests.get(0).usageReported()).isFalse();
    }

    @Test
    void aConnectionNeverMadeIsReleasedWhole() {
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.finish(new AttemptOutcome.NeverSent(SignalNormaliser.connectionFailed()));
        life.answered(502, Optional.of("upstream_unavailable"), OptionalLong.empty());

        assertThat(runtime.counters().reservationsReleased()).isEqualTo(1);
        assertThat(attempts.get(0).settlement()).isEqualTo(Settlement.RELEASED);
    }

    @Test
    void aClientThatLeavesMidStreamIsChargedWhatStreamed() {
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        a.streamHead(answer(200, Map.of(), ""));
        life.responseStarted(200);
        a.finish(new AttemptOutcome.ClientGone(true, Optional.of(new ObservedUsage(0, 70, 0, 0, false))));
        life.clientGone();

        assertThat(attempts.get(0).result()).isEqualTo(AttemptResult.CLIENT_GONE);
        assertThat(attempts.get(0).usage().output()).isEqualTo(70);
        assertThat(answersFed()).as("fed at the stream's head, once").isEqualTo(1);
        assertThat(requests.get(0).status()).isEqualTo(200);
    }

    @Test
    void aClientThatLeavesWhileARetryWaitsEndsItWithNoTokens() {
        for (int i = 0; i < 10; i++) {
            runtime.retryBudget("oa").firstAttempt();
        }
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.sending();
        a.finish(new AttemptOutcome.Throttled(answer(429, Map.of("retry-after-ms", "100"), "")));

        life.clientGone();

        assertThat(runtime.counters().reservationsSettled()).as("the first attempt reached the provider").isEqualTo(1);
        assertThat(attempts).extracting(AttemptEvent::settlement).containsExactly(Settlement.HELD, Settlement.SETTLED);
        assertThat(requests.get(0).status()).isEqualTo(RequestEvent.CLIENT_CLOSED_REQUEST);
    }

    @Test
    void aClientThatLeavesBeforeItsAdmissionIsDecidedHoldsNothing() {
        RequestLifecycle life = runtime.arrive("t", RequestThread.inPlace());
        life.clientGone();

        assertThat(requests.get(0).status()).isEqualTo(499);
        assertThat(requests.get(0).decision()).isEqualTo("none");
        assertThat(requests.get(0).caller()).isEmpty();
    }

    @Test
    void aLocalRefusalIsRecordedWithWhatDecidedIt() {
        RequestLifecycle life = runtime.arrive("t", RequestThread.inPlace());
        life.planned(new RequestPlan("t", "openai.chat", new Caller("acme-corp", "acme", "search", "main"),
                CONFIG.profiles().get("chat"), TrafficClass.INTERACTIVE, dev.sluice.governor.AdmissionRequest.NO_DEADLINE,
                new TokenEstimate(200_000, 200, 0, 200_000, 200_000, Tokenizer.O200K_BASE), false));
        Admission[] out = new Admission[1];
        life.admit(a -> out[0] = a);
        Admission.Refused refused = (Admission.Refused) out[0];
        life.answered(429, Optional.of(refused.rejection().code()), OptionalLong.of(refused.rejection().retryAfterMillis()));

        RequestEvent e = requests.get(0);
        assertThat(e.decision()).isEqualTo("rejected");
        assertThat(e.gatewayDecision()).contains("rejected_locally");
        assertThat(e.decider()).hasValueSatisfying(d -> {
            assertThat(d.limiter()).isEqualTo("input_tpm");
            assertThat(d.scope()).isEqualTo("deployment:oa");
        });
        assertThat(e.attempts()).isZero();
        assertThat(runtime.counters().localRejections()).isEqualTo(1);
    }

    @Test
    void anAttemptEndsOnce() {
        RequestLifecycle life = arrive();
        Attempt a = admitted(life);
        a.finish(new AttemptOutcome.NeverSent(SignalNormaliser.connectionFailed()));
        life.answered(502, Optional.empty(), OptionalLong.empty());

        assertThatThrownBy(() -> a.finish(new AttemptOutcome.NeverSent(SignalNormaliser.connectionFailed())))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aSecondAnswerIsCountedAsADuplicate() {
        RequestLifecycle life = runtime.arrive("t", RequestThread.inPlace());
        life.answered(401, Optional.of("invalid_api_key"), OptionalLong.empty());
        life.answered(401, Optional.of("invalid_api_key"), OptionalLong.empty());

        assertThat(runtime.counters().duplicateAnswers()).isEqualTo(1);
    }
}
