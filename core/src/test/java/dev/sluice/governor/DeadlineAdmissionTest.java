package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.deployment;
import static dev.sluice.governor.GovernorFixture.minute;
import static dev.sluice.limits.Dimension.INPUT_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Deadline-aware admission: waits predicted at the rate in force, the call's own duration added,
 * refusals at once when the deadline cannot be met, queued requests withdrawn when their client
 * leaves, and every refusal and wait explained.
 */
class DeadlineAdmissionTest {

    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    /**
     * 6,000 input tokens a minute at the deployment (100 a second), all of them spent: a request
     * of 100 tokens fits after one second at the configured rate.
     */
    private static GovernorFixture spentDeployment() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), minute(INPUT_TOKENS, 6_000)).build());
        assertThat(f.admit("warmup", 6_000, 0)).isInstanceOf(Decision.Admitted.class);
        return f;
    }

    private static AdmissionRequest request(GovernorFixture f, String id, long serviceNanos, long deadlineInNanos) {
        return new AdmissionRequest(id, GovernorFixture.path("acme"), new Demand(100, 0, false, serviceNanos),
                TrafficClass.BATCH, deadlineInNanos == AdmissionRequest.NO_DEADLINE ? AdmissionRequest.NO_DEADLINE
                        : f.clock.nanos() + deadlineInNanos);
    }

    private static Rejection rejection(Decision d) {
        return ((Decision.Rejected) d).rejection();
    }

    @Test
    void theWaitForTheFirstRequestIsPredictedAtTheRampedRateNotTheConfiguredOne() {
        GovernorFixture f = spentDeployment();
        f.governor.control("dep", INPUT_TOKENS, 0.25, 0);

        Decision.Queued q = (Decision.Queued) f.governor.admit(request(f, "a", 0, AdmissionRequest.NO_DEADLINE));

        // 100 tokens at a quarter of 100 a second.
        assertThat(q.expectedWaitNanos()).isEqualTo(4 * SECOND);
    }

    @Test
    void theWaitBehindQueuedRequestsIsPredictedAtTheRateInForce() {
        GovernorFixture f = spentDeployment();
        f.governor.admit(request(f, "a", 0, AdmissionRequest.NO_DEADLINE));
        f.governor.control("dep", INPUT_TOKENS, 0.25, 0);

        Decision.Queued second = (Decision.Queued) f.governor.admit(request(f, "b", 0, AdmissionRequest.NO_DEADLINE));

        // One second ahead and one of its own at the configured rate, four times as long at a quarter of it.
        assertThat(second.expectedWaitNanos()).isEqualTo(8 * SECOND);
        assertThat(second.explanation().predictedWaitNanos()).isEqualTo(8 * SECOND);
        // Behind the first, it waits for what the first waits for.
        assertThat(second.explanation().scope()).contains(deployment());
        assertThat(second.explanation().dimension()).contains(INPUT_TOKENS);
    }

    @Test
    void aPauseStillToRunIsAddedToThePredictedWaitAndNamedInTheExplanation() {
        GovernorFixture f = spentDeployment();
        f.governor.admit(request(f, "a", 0, AdmissionRequest.NO_DEADLINE));
        f.governor.control("dep", INPUT_TOKENS, 1.0, 5 * SECOND);

        Decision.Queued second = (Decision.Queued) f.governor.admit(request(f, "b", 0, AdmissionRequest.NO_DEADLINE));

        assertThat(second.expectedWaitNanos()).isEqualTo(7 * SECOND);
        assertThat(second.explanation().paused()).isTrue();
    }

    @Test
    void aCallThatAloneOutlastsTheDeadlineIsRefusedAtOnceWithoutARetryHintAndHoldsNothing() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), minute(INPUT_TOKENS, 6_000)).build());

        Rejection r = rejection(f.governor.admit(request(f, "a", 30 * SECOND, 20 * SECOND)));

        assertThat(r.code()).isEqualTo("deadline_cannot_be_met");
        assertThat(r.decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
        assertThat(r.retryable()).isFalse();
        assertThat(r.message()).isEqualTo("The batch request would take about 30.0 s to answer, but its deadline is "
                + "in 20.0 s; it was answered now rather than left to time out.");
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(6_000.0);
    }

    @Test
    void aWaitPlusTheCallsDurationPastTheDeadlineIsRefusedAtOnceWithTheWaitAsRetryHint() {
        GovernorFixture f = spentDeployment();
        f.governor.control("dep", INPUT_TOKENS, 0.25, 0);

        // Waits 4 s, then takes 10 s, for which twice that is left: 24 s, against a deadline in 22 s.
        Rejection r = rejection(f.governor.admit(request(f, "a", 10 * SECOND, 22 * SECOND)));

        assertThat(r.code()).isEqualTo("deadline_cannot_be_met");
        assertThat(r.retryable()).isTrue();
        assertThat(r.retryAfterMillis()).isEqualTo(4_000);
        assertThat(r.explanation()).isEqualTo(new Explanation(Optional.of(deployment()), Optional.of(INPUT_TOKENS),
                Optional.empty(), false, false, 4 * SECOND, 10 * SECOND, 2 * SECOND, true));
        assertThat(r.message()).isEqualTo("The batch request would wait about 4.0 s for input tokens per minute on "
                + "deployment:dep and then take about 10.0 s to answer (20.0 s left for it, as calls vary), but its "
                + "deadline is in 22.0 s; it was answered now rather than left to time out.");
    }

    @Test
    void aWaitThatLeavesRoomForTheCallIsQueued() {
        GovernorFixture f = spentDeployment();

        // Waits 1 s, then takes 10 s, for which twice that is left: 21 s, against a deadline in 22 s.
        Decision d = f.governor.admit(request(f, "a", 10 * SECOND, 22 * SECOND));

        assertThat(d).isInstanceOf(Decision.Queued.class);
    }

    @Test
    void aQueuedRequestLeavesWhenItsDeadlineNoLongerLeavesTimeForTheCall() {
        GovernorFixture f = spentDeployment();
        Decision.Queued q = (Decision.Queued) f.governor.admit(request(f, "a", 10 * SECOND, 22 * SECOND));
        // The provider refuses; the deployment drops to a tenth: the 100 tokens now take 10 s to come.
        f.governor.control("dep", INPUT_TOKENS, 0.1, 0);

        f.clock.advance(Duration.ofSeconds(2));
        f.governor.onTimer();

        Rejection r = rejection(q.outcome().toCompletableFuture().join());
        assertThat(r.code()).isEqualTo("deadline_cannot_be_met");
        assertThat(r.decision()).isEqualTo(GatewayDecision.QUEUED_THEN_TIMED_OUT);
        assertThat(r.explanation().deadlineBound()).isTrue();
        assertThat(r.explanation().scope()).contains(deployment());
    }

    @Test
    void aRequestQueuedBeforeAnyCallsDurationWasKnownLeavesOnceTheFirstDurationLeavesItNoRoom() {
        GovernorFixture f = spentDeployment();
        f.governor.control("dep", INPUT_TOKENS, 0.1, 0);
        // A cold start: nothing answered yet, so no duration; a 10 s wait fits the 12 s deadline.
        Decision.Queued early = (Decision.Queued) f.governor.admit(request(f, "early", 0, 12 * SECOND));
        f.clock.advance(Duration.ofSeconds(1));

        // The first request that knows the call takes 5 s: the early one must go by 12 - 2 x 5 = 2 s.
        f.governor.admit(request(f, "later", 5 * SECOND, AdmissionRequest.NO_DEADLINE));
        f.clock.advance(Duration.ofMillis(999));
        f.governor.onTimer();
        assertThat(early.outcome().toCompletableFuture()).isNotDone();
        f.clock.advance(Duration.ofMillis(1));
        f.governor.onTimer();

        Rejection r = rejection(early.outcome().toCompletableFuture().join());
        assertThat(r.code()).isEqualTo("deadline_cannot_be_met");
        assertThat(r.decision()).isEqualTo(GatewayDecision.QUEUED_THEN_TIMED_OUT);
        assertThat(r.explanation().serviceNanos()).isEqualTo(5 * SECOND);
        assertThat(r.explanation().deadlineBound()).isTrue();
        assertThat(f.governor.nextWakeupNanos()).isNotEqualTo(Long.MAX_VALUE);
    }

    @Test
    void untilItsClassKnowsADurationTheFirstOneOfAnotherClassStandsInForIt() {
        GovernorFixture f = spentDeployment();
        f.governor.control("dep", INPUT_TOKENS, 0.1, 0);
        Decision.Queued early = (Decision.Queued) f.governor.admit(request(f, "early", 0, 12 * SECOND));

        // A chat that knows its call takes 4 s (the early one must go by 12 - 2 x 4 = 4 s); no batch request comes after.
        f.governor.admit(new AdmissionRequest("chat", GovernorFixture.path("globex"),
                new Demand(100, 0, false, 4 * SECOND), TrafficClass.INTERACTIVE, AdmissionRequest.NO_DEADLINE));
        f.clock.advance(Duration.ofSeconds(8));
        f.governor.onTimer();

        Rejection r = rejection(early.outcome().toCompletableFuture().join());
        assertThat(r.code()).isEqualTo("deadline_cannot_be_met");
        assertThat(r.explanation().serviceNanos()).isEqualTo(4 * SECOND);
    }

    @Test
    void aWithdrawnRequestLeavesTheQueueAtOnceAndTheOneBehindItGoesWhenCapacityComes() {
        GovernorFixture f = spentDeployment();
        List<String> heard = new ArrayList<>();
        f.governor.addListener(new GovernorListener() {
            @Override
            public void onDecision(AdmissionRequest request, Decision.Final decision) {
                heard.add(request.requestId());
            }
        });
        Decision.Queued gone = (Decision.Queued) f.governor.admit(request(f, "gone", 0, AdmissionRequest.NO_DEADLINE));
        Decision.Queued next = (Decision.Queued) f.governor.admit(new AdmissionRequest("next",
                GovernorFixture.path("globex"), new Demand(100, 0, false), TrafficClass.BATCH,
                AdmissionRequest.NO_DEADLINE));

        assertThat(gone.withdrawal().withdraw()).isTrue();

        assertThat(rejection(gone.outcome().toCompletableFuture().join()).code()).isEqualTo("client_gone");
        f.clock.advance(Duration.ofSeconds(1));
        f.governor.onTimer();
        assertThat(next.outcome().toCompletableFuture().join()).isInstanceOf(Decision.Admitted.class);
        // Only the admission is heard: a client leaving says nothing about capacity.
        assertThat(heard).containsExactly("next");
        GovernorSnapshot.ShareSnapshot acme = f.governor.snapshot().lanes().getFirst().shares().stream()
                .filter(s -> s.tenant().equals("acme")).findFirst().orElseThrow();
        assertThat(acme.admitted()).isZero();
        assertThat(acme.usedPerMinute().get(INPUT_TOKENS)).isZero();
    }

    @Test
    void aRequestAlreadyDecidedCannotBeWithdrawn() {
        GovernorFixture f = spentDeployment();
        Decision.Queued q = (Decision.Queued) f.governor.admit(request(f, "a", 0, AdmissionRequest.NO_DEADLINE));
        f.clock.advance(Duration.ofSeconds(1));
        f.governor.onTimer();

        assertThat(q.withdrawal().withdraw()).isFalse();
        assertThat(q.outcome().toCompletableFuture().join()).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void aRefusalSaysWhichBucketAndDimensionDecidedAndThePredictedWaitAgainstTheBudget() {
        GovernorFixture f = spentDeployment();

        Rejection r = rejection(f.governor.admit(f.request("acme", 100, 0, TrafficClass.INTERACTIVE)));

        assertThat(r.code()).isEqualTo("deployment_input_tpm_exhausted");
        assertThat(r.explanation().headerValue()).isEqualTo("scope=deployment:dep dimension=input_tpm paused=false "
                + "reserve=false predicted_wait_ms=1000 budget_ms=300 bound_by=class");
    }
}
