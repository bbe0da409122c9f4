package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.deployment;
import static dev.sluice.governor.GovernorFixture.limits;
import static dev.sluice.governor.GovernorFixture.minute;
import static dev.sluice.governor.GovernorFixture.tenant;
import static dev.sluice.limits.Dimension.CONCURRENT_REQUESTS;
import static dev.sluice.limits.Dimension.DAILY_COST;
import static dev.sluice.limits.Dimension.DAILY_REQUESTS;
import static dev.sluice.limits.Dimension.DAILY_TOKENS;
import static dev.sluice.limits.Dimension.INPUT_TOKENS;
import static dev.sluice.limits.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.store.SettleOutcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The admission rules of the governor, one per test, with exact numbers on a manual clock. */
class AdmissionRulesTest {

    @Test
    void aRequestThatFitsEveryBucketIsAdmittedAndHeldOnEachOfThem() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(INPUT_TOKENS, 10_000))
                .scope(deployment(), minute(INPUT_TOKENS, 60_000)).build());

        Decision d = f.admit("acme", 1_000, 0);

        assertThat(d).isInstanceOf(Decision.Admitted.class);
        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(9_000);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(59_000);
    }

    @Test
    void bucketsRefillContinuouslyNotOnAMinuteBoundary() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(REQUESTS, 60)).build());
        for (int i = 0; i < 60; i++) {
            assertThat(f.admit("acme", 0, 0)).isInstanceOf(Decision.Admitted.class);
        }
        assertThat(f.governor.admit(f.request("acme", 0, 0, TrafficClass.INTERACTIVE)))
                .isInstanceOf(Decision.Rejected.class);

        f.clock.advanceMillis(1_000);

        assertThat(f.state(tenant("acme"), REQUESTS).available()).isEqualTo(1.0);
        assertThat(f.admit("acme", 0, 0)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void aRejectionLeavesNoPartialHoldAnywhere() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(INPUT_TOKENS, 10_000))
                .scope(deployment(), minute(INPUT_TOKENS, 6_000)).build());
        f.admit("acme", 5_000, 0);

        Decision d = f.governor.admit(f.request("acme", 2_000, 0, TrafficClass.INTERACTIVE));

        Rejection r = ((Decision.Rejected) d).rejection();
        assertThat(r.scopeName()).isEqualTo("deployment:dep");
        assertThat(r.limiterName()).isEqualTo("input_tpm");
        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(5_000);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(1_000);
    }

    @Test
    void retryAfterComesFromRefillArithmetic() {
        // 6,000 per minute = 100 per second; 1,000 available, 2,000 needed: 10 s.
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), minute(INPUT_TOKENS, 6_000)).build());
        f.admit("acme", 5_000, 0);

        Rejection r = ((Decision.Rejected) f.governor.admit(f.request("acme", 2_000, 0, TrafficClass.INTERACTIVE)))
                .rejection();

        assertThat(r.decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
        assertThat(r.code()).isEqualTo("deployment_input_tpm_exhausted");
        assertThat(r.retryAfterMillis()).isEqualTo(10_000);
        assertThat(r.retryable()).isTrue();
    }

    @Test
    void aRequestLargerThanABucketCanEverHoldIsRejectedAtOnceAndNotRetryable() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(INPUT_TOKENS, 4_000)).build());

        Decision d = f.governor.admit(f.request("acme", 4_001, 0, TrafficClass.BATCH));

        Rejection r = ((Decision.Rejected) d).rejection();
        assertThat(r.code()).isEqualTo("tenant_input_tpm_too_large");
        assertThat(r.retryable()).isFalse();
        assertThat(f.governor.snapshot().lanes().getFirst().queued().get(TrafficClass.BATCH)).isZero();
    }

    @Test
    void aRequestLargerThanTheDeploymentsWindowWaitsForAnEmptyWindowInsteadOfBeingRejected() {
        // 60,000 a minute over the default one-second window: 1,000 at once.
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(INPUT_TOKENS, 60_000)).build());
        f.admit("acme", 500, 0);

        Decision d = f.governor.admit(f.request("acme", 5_000, 0, TrafficClass.BATCH));

        assertThat(d).isInstanceOf(Decision.Queued.class);
        f.clock.advanceMillis(500);
        f.governor.onTimer();
        assertThat(((Decision.Queued) d).outcome().toCompletableFuture().getNow(null))
                .isInstanceOf(Decision.Admitted.class);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(-4_000);
    }

    @Test
    void aRequestLargerThanTheDeploymentsWholeMinuteIsRejectedAtOnce() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(INPUT_TOKENS, 60_000)).build());

        Rejection r = ((Decision.Rejected) f.governor.admit(f.request("acme", 60_001, 0, TrafficClass.BATCH)))
                .rejection();

        assertThat(r.code()).isEqualTo("deployment_input_tpm_too_large");
        assertThat(r.retryable()).isFalse();
    }

    @Test
    void aProviderDeploymentLetsOneSecondOfRequestsGoAtOnceByDefault() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(REQUESTS, 600)).build());
        int admitted = 0;
        while (f.governor.admit(f.request("acme", 0, 0, TrafficClass.INTERACTIVE)) instanceof Decision.Admitted) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(10);
    }

    @Test
    void anExplicitBurstOverridesTheDefault() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), Limits.of(Limit.of(REQUESTS, 600, 5))).build());
        int admitted = 0;
        while (f.governor.admit(f.request("acme", 0, 0, TrafficClass.INTERACTIVE)) instanceof Decision.Admitted) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(5);
    }

    @Test
    void settlingRefundsWhatWasNotUsed() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(INPUT_TOKENS, 10_000)).build());
        Reservation r = ((Decision.Admitted) f.admit("acme", 4_000, 0)).reservation();

        assertThat(r.settle(new Usage(1_000, 0))).isEqualTo(SettleOutcome.SETTLED);

        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(9_000);
        assertThat(f.state(tenant("acme"), INPUT_TOKENS).refunded()).isEqualTo(3_000);
    }

    @Test
    void aRequestTheProviderDidNotCountGivesBackItsRequestAndItsDailyRequestToo() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"),
                Limits.of(Limit.of(REQUESTS, 60), Limit.of(DAILY_REQUESTS, 100))).build());
        Reservation counted = ((Decision.Admitted) f.admit("acme", 10, 0)).reservation();
        Reservation uncounted = ((Decision.Admitted) f.admit("acme", 10, 0)).reservation();

        counted.settle(new Usage(0, 0));
        uncounted.settle(Usage.UNCOUNTED);

        assertThat(f.state(tenant("acme"), REQUESTS).available()).isEqualTo(59);
        assertThat(f.state(tenant("acme"), REQUESTS).refunded()).isEqualTo(1);
        assertThat(f.state(tenant("acme"), DAILY_REQUESTS).available()).isEqualTo(99);
    }

    @Test
    void aRefundNeverLiftsABucketAboveItsCapacity() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(INPUT_TOKENS, 600)).build());
        Reservation r = ((Decision.Admitted) f.admit("acme", 100, 0)).reservation();
        f.clock.advanceMillis(10_000);

        r.settle(new Usage(0, 0));

        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(600);
    }

    @Test
    void overageBecomesDebtThatDelaysTheNextRefill() {
        // 600 per minute = 10 per second.
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(INPUT_TOKENS, 600)).build());
        Reservation r = ((Decision.Admitted) f.admit("acme", 600, 0)).reservation();
        r.settle(new Usage(700, 0));

        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(-100);
        assertThat(f.state(tenant("acme"), INPUT_TOKENS).overage()).isEqualTo(100);
        f.clock.advanceMillis(10_000);
        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(0);
    }

    @Test
    void settleIsIdempotent() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(INPUT_TOKENS, 10_000)).build());
        Reservation r = ((Decision.Admitted) f.admit("acme", 4_000, 0)).reservation();

        r.settle(new Usage(1_000, 0));
        assertThat(r.settle(new Usage(1_000, 0))).isEqualTo(SettleOutcome.ALREADY_CLOSED);
        assertThat(r.release()).isEqualTo(SettleOutcome.ALREADY_CLOSED);

        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(9_000);
    }

    @Test
    void releaseGivesEverythingBack() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(INPUT_TOKENS, 10_000, REQUESTS, 10, CONCURRENT_REQUESTS, 2)).build());
        Reservation r = ((Decision.Admitted) f.admit("acme", 4_000, 0)).reservation();

        assertThat(r.release()).isEqualTo(SettleOutcome.RELEASED);

        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(10_000);
        assertThat(f.state(tenant("acme"), REQUESTS).available()).isEqualTo(10);
        assertThat(f.state(tenant("acme"), CONCURRENT_REQUESTS).available()).isEqualTo(2);
    }

    @Test
    void anUnsettledLeaseExpiresAndGivesItsConcurrencyBack() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(CONCURRENT_REQUESTS, 1))
                .leaseTtl(Duration.ofSeconds(30)).build());
        f.admit("acme", 10, 0);
        assertThat(f.state(tenant("acme"), CONCURRENT_REQUESTS).available()).isEqualTo(0);

        f.clock.advance(Duration.ofSeconds(31));
        f.governor.onTimer();

        assertThat(f.state(tenant("acme"), CONCURRENT_REQUESTS).available()).isEqualTo(1);
        assertThat(f.state(tenant("acme"), CONCURRENT_REQUESTS).expired()).isEqualTo(1);
        assertThat(f.store.openLeases()).isZero();
    }

    @Test
    void concurrencyIsReleasedExactlyOnceEvenIfSettledAfterExpiry() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(CONCURRENT_REQUESTS, 2))
                .leaseTtl(Duration.ofSeconds(30)).build());
        Reservation r = ((Decision.Admitted) f.admit("acme", 10, 0)).reservation();
        f.admit("acme", 10, 0);
        f.clock.advance(Duration.ofSeconds(31));
        f.governor.onTimer();

        assertThat(r.settle(new Usage(10, 5))).isEqualTo(SettleOutcome.ALREADY_CLOSED);

        assertThat(f.state(tenant("acme"), CONCURRENT_REQUESTS).available()).isEqualTo(2);
    }

    @Test
    void aSpentDailyCapIsABudgetRejectionUntilMidnight() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(DAILY_TOKENS, 1_000)).build());
        f.clock.advance(Duration.ofHours(23));
        ((Decision.Admitted) f.admit("acme", 900, 0)).reservation().settle(new Usage(900, 0));

        Rejection r = ((Decision.Rejected) f.admit("acme", 200, 0)).rejection();

        assertThat(r.decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        assertThat(r.retryable()).isFalse();
        assertThat(r.retryAfterMillis()).isEqualTo(Duration.ofHours(1).toMillis());
        f.clock.advance(Duration.ofHours(1));
        assertThat(f.admit("acme", 200, 0)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void aSpentMoneyBudgetIsBudgetExhaustedInDollarsUntilMidnight() {
        // $1.00 a day; each request is reserved at $0.40 and costs $0.30.
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(DAILY_COST, 1_000_000)).build());
        f.clock.advance(Duration.ofHours(22));
        for (int i = 0; i < 3; i++) {
            ((Decision.Admitted) f.admitCosting("acme", 100, 100, 400_000)).reservation()
                    .settle(new Usage(100, 100, 300_000));
        }

        Rejection r = ((Decision.Rejected) f.admitCosting("acme", 100, 100, 400_000)).rejection();

        assertThat(r.decision()).isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        assertThat(r.code()).isEqualTo("tenant_budget_exhausted");
        assertThat(r.retryable()).isFalse();
        assertThat(r.retryAfterMillis()).isEqualTo(Duration.ofHours(2).toMillis());
        assertThat(r.message()).isEqualTo("tenant:acme has spent its daily budget of $1.00 ($0.10 left, this request "
                + "may cost up to $0.40); it resets in 7200.0 s.");
        assertThat(f.state(tenant("acme"), DAILY_COST).available()).isEqualTo(100_000);
        assertThat(f.admitCosting("acme", 100, 100, 100_000)).isInstanceOf(Decision.Admitted.class);
        f.clock.advance(Duration.ofHours(2));
        assertThat(f.admitCosting("acme", 100, 100, 400_000)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void aFreeRequestIsNeverHeldByAMoneyBudget() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(DAILY_COST, 1)).build());
        ((Decision.Admitted) f.admitCosting("acme", 100, 100, 1)).reservation().settle(new Usage(100, 100, 1));

        assertThat(f.admit("acme", 100, 100)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void theDecisionNamesTheBindingDimensionAndScope() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(REQUESTS, 1))
                .scope(deployment(), limits(INPUT_TOKENS, 600)).build());
        f.admit("acme", 10, 0);

        Rejection r = ((Decision.Rejected) f.governor.admit(f.request("acme", 10, 0, TrafficClass.INTERACTIVE)))
                .rejection();

        assertThat(r.limiter()).contains(Dimension.REQUESTS);
        assertThat(r.scopeName()).isEqualTo("tenant:acme");
        assertThat(r.message()).contains("tenant:acme").contains("requests per minute");
    }

    @Test
    void aDeadlineInThePastIsRejectedWithoutTouchingAnyBucket() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(REQUESTS, 10)).build());
        f.clock.advanceMillis(5);
        AdmissionRequest late = new AdmissionRequest("late", GovernorFixture.path("acme"), new Demand(1, 1, false),
                TrafficClass.INTERACTIVE, f.clock.nanos() - 1);

        assertThat(f.governor.admit(late)).isInstanceOf(Decision.Rejected.class);
        assertThat(f.state(tenant("acme"), REQUESTS).reserved()).isZero();
    }
}
