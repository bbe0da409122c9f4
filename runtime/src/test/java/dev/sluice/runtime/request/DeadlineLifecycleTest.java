package dev.sluice.runtime.request;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.GovernorSnapshot;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.OneRouteConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.signal.ProviderKind;
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
 * Deadlines in the lifecycle, without sockets: the call's expected duration is learned at each
 * answered attempt and added at admission; a request that cannot finish by its deadline is refused
 * at once; a queued request whose client leaves is withdrawn and charged nothing; every wait and
 * refusal is recorded with what decided it.
 */
class DeadlineLifecycleTest {

    private static final long SECOND = 1_000_000_000L;
    /** One request a second at the deployment, one at a time in its burst. */
    private static final SluiceConfig CONFIG = OneRouteConfig.of("limits: { rpm: 60 }", "", "sk-test-deadline");
    private static final SignalNormaliser OPENAI = new SignalNormaliser(ProviderKind.OPENAI);

    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    private final RecordedEvents events = new RecordedEvents();
    private final List<RequestEvent> requests = events.requests;
    private final SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, store).clock(clock).adaptive(false)
            .events(events).build();

    @AfterEach
    void everyReservationEnded() {
        assertThat(runtime.counters().inFlight()).as(runtime.counters().toString()).isZero();
        assertThat(runtime.counters().reservationsOpen()).as(runtime.counters().toString()).isZero();
        assertThat(store.openLeases()).isZero();
    }

    private RequestLifecycle arrive(String id, long deadlineInNanos) {
        RequestLifecycle life = runtime.arrive(id, RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan(id, "openai.chat", new Caller("acme-corp", "acme", "search", "main"),
                CONFIG.profiles().get("chat"), TrafficClass.BATCH,
                deadlineInNanos == AdmissionRequest.NO_DEADLINE ? deadlineInNanos : clock.nanos() + deadlineInNanos,
                new TokenEstimate(100, 200, 0, 100, 100, Tokenizer.O200K_BASE), false));
        return life;
    }

    private static Admission[] admit(RequestLifecycle life) {
        Admission[] out = new Admission[1];
        life.admit(a -> out[0] = a);
        return out;
    }

    /** Answers a whole (non-streamed) call of {@code nanos} that produced {@code output} tokens. */
    private void answer(RequestLifecycle life, Attempt a, long nanos, long output) {
        a.sending();
        clock.advanceNanos(nanos);
        a.responseHead();
        a.finish(new AttemptOutcome.Answered(OPENAI.normalise(200, name -> List.of(), "", 0),
                new ObservedUsage(100, output, 0, 0, true)));
        life.answered(200, Optional.empty(), OptionalLong.empty());
    }

    private GovernorSnapshot.LaneSnapshot lane() {
        return runtime.governor().snapshot().lanes().getFirst();
    }

    @Test
    void anAnsweredAttemptTeachesTheRoutesCallDuration() {
        RequestLifecycle life = arrive("a", AdmissionRequest.NO_DEADLINE);
        answer(life, ((Admission.Admitted) admit(life)[0]).attempt(), 20 * SECOND, 100);

        // 20 s for 100 tokens; the route's answers run to 100 tokens, below the 200 reserved.
        assertThat(runtime.serviceTimes().predictNanos("oa|chat/batch", 200)).isEqualTo(20 * SECOND);
    }

    @Test
    void aRequestThatCannotFinishByItsDeadlineIsRefusedAtOnceAndRecordedWithWhatDecided() {
        RequestLifecycle first = arrive("a", AdmissionRequest.NO_DEADLINE);
        answer(first, ((Admission.Admitted) admit(first)[0]).attempt(), 20 * SECOND, 100);

        RequestLifecycle late = arrive("b", 10 * SECOND);
        Admission.Refused refused = (Admission.Refused) admit(late)[0];
        late.answered(429, Optional.of(refused.rejection().code()),
                OptionalLong.of(refused.rejection().retryAfterMillis()));

        assertThat(refused.rejection().code()).isEqualTo("deadline_cannot_be_met");
        assertThat(refused.rejection().retryable()).isFalse();
        RequestEvent e = requests.get(1);
        assertThat(e.decision()).isEqualTo("rejected");
        assertThat(e.code()).contains("deadline_cannot_be_met");
        assertThat(e.decider()).hasValueSatisfying(d -> {
            assertThat(d.serviceNanos()).hasValue(20 * SECOND);
            assertThat(d.predictedWaitNanos()).hasValue(0);
        });
        assertThat(runtime.counters().reservationsOpened()).isEqualTo(1);
    }

    @Test
    void aQueuedRequestWhoseClientLeavesIsWithdrawnAtOnceAndChargedNothing() {
        RequestLifecycle first = arrive("a", AdmissionRequest.NO_DEADLINE);
        Attempt held = ((Admission.Admitted) admit(first)[0]).attempt();
        RequestLifecycle queued = arrive("b", AdmissionRequest.NO_DEADLINE);
        Admission[] decided = admit(queued);
        assertThat(decided[0]).isNull();
        assertThat(lane().queued().get(TrafficClass.BATCH)).isEqualTo(1);

        clock.advanceMillis(400);
        queued.clientGone();

        assertThat(lane().queued().get(TrafficClass.BATCH)).isZero();
        clock.advanceMillis(600);
        runtime.onTimer(() -> {});
        assertThat(decided[0]).as("nobody is told of a withdrawn request").isNull();
        RequestEvent gone = requests.get(0);
        assertThat(gone.status()).isEqualTo(RequestEvent.CLIENT_CLOSED_REQUEST);
        assertThat(gone.decision()).isEqualTo("queued");
        assertThat(gone.queueWaitNanos()).isEqualTo(400_000_000L);
        assertThat(gone.attempts()).isZero();
        // Only the first request was ever admitted, and its tenant is charged for it alone.
        assertThat(runtime.counters().reservationsOpened()).isEqualTo(1);
        assertThat(lane().shares().getFirst().admitted()).isEqualTo(1);
        held.finish(new AttemptOutcome.NeverSent(SignalNormaliser.connectionFailed()));
        first.answered(502, Optional.empty(), OptionalLong.empty());
    }

    @Test
    void aQueueWaitIsRecordedWithTheBucketThatHeldItAndThePredictedWaitAgainstTheBudget() {
        RequestLifecycle first = arrive("a", AdmissionRequest.NO_DEADLINE);
        answer(first, ((Admission.Admitted) admit(first)[0]).attempt(), 0, 100);
        RequestLifecycle waiting = arrive("b", 30 * SECOND);
        Admission[] decided = admit(waiting);

        clock.advanceMillis(1_000);
        runtime.onTimer(() -> {});
        answer(waiting, ((Admission.Admitted) decided[0]).attempt(), 0, 100);

        RequestEvent e = requests.get(1);
        assertThat(e.decision()).isEqualTo("queued");
        assertThat(e.queueWaitNanos()).isEqualTo(SECOND);
        assertThat(e.decider()).hasValueSatisfying(d -> {
            assertThat(d.scope()).isEqualTo("deployment:oa");
            assertThat(d.limiter()).isEqualTo("rpm");
            assertThat(d.predictedWaitNanos()).hasValue(SECOND);
            assertThat(d.budgetNanos()).hasValue(30 * SECOND);
            assertThat(d.paused()).isFalse();
        });
    }
}
