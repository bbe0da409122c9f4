package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.deployment;
import static dev.sluice.governor.GovernorFixture.limits;
import static dev.sluice.governor.GovernorFixture.minute;
import static dev.sluice.governor.GovernorFixture.tenant;
import static dev.sluice.limits.Dimension.CONCURRENT_REQUESTS;
import static dev.sluice.limits.Dimension.INPUT_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.store.SettleOutcome;
import org.junit.jupiter.api.Test;

/** A reload swaps limits without losing what reservations in flight hold. */
class ReconfigurationTest {

    @Test
    void reservationsInFlightSettleAgainstTheSameBucketsAfterAReload() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(INPUT_TOKENS, 10_000, CONCURRENT_REQUESTS, 2)).build());
        Reservation inFlight = ((Decision.Admitted) f.admit("acme", 4_000, 0)).reservation();

        f.governor.reconfigure(config()
                .scope(tenant("acme"), limits(INPUT_TOKENS, 20_000, CONCURRENT_REQUESTS, 2)).build());

        assertThat(f.state(tenant("acme"), CONCURRENT_REQUESTS).open()).isEqualTo(1);
        assertThat(inFlight.settle(new Usage(1_000, 0))).isEqualTo(SettleOutcome.SETTLED);
        assertThat(f.state(tenant("acme"), CONCURRENT_REQUESTS).available()).isEqualTo(2);
        assertThat(f.state(tenant("acme"), INPUT_TOKENS).conserved()).isTrue();
    }

    @Test
    void aLoweredLimitTakesEffectAtOnceAndARaisedOneRefillsTowardsIt() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), minute(INPUT_TOKENS, 6_000)).build());

        f.governor.reconfigure(config().scope(deployment(), minute(INPUT_TOKENS, 3_000)).build());
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(3_000);

        f.governor.reconfigure(config().scope(deployment(), minute(INPUT_TOKENS, 12_000)).build());
        f.clock.advanceMillis(10_000);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(5_000);
    }

    @Test
    void waitingRequestsAreReconsideredUnderTheNewLimits() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(INPUT_TOKENS, 1_000)).build());
        f.admit("a", 1_000, 0);
        Decision.Queued q = (Decision.Queued) f.admit("a", 500, 0);

        f.governor.reconfigure(config().scope(deployment(), limits(INPUT_TOKENS, 100_000)).build());
        f.clock.advanceMillis(1_000);
        f.governor.onTimer();

        assertThat(q.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void aRemovedDeploymentsWaitersAreAnsweredDeploymentRemovedAndItsReservationsStillSettle() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(INPUT_TOKENS, 1_000)).build());
        Reservation inFlight = ((Decision.Admitted) f.admit("a", 1_000, 0)).reservation();
        Decision.Queued q = (Decision.Queued) f.admit("a", 500, 0);

        Runnable answer = f.governor.reconfigure(config().build(), java.util.Set.of("dep"));
        assertThat(q.outcome().toCompletableFuture().isDone()).as("answered only once the caller is ready").isFalse();
        answer.run();

        Decision.Final answered = q.outcome().toCompletableFuture().getNow(null);
        assertThat(answered).isInstanceOf(Decision.Rejected.class);
        Rejection r = ((Decision.Rejected) answered).rejection();
        assertThat(r.code()).isEqualTo("deployment_removed");
        assertThat(r.decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
        assertThat(r.scopeName()).isEqualTo("deployment:dep");
        assertThat(f.governor.queuedDemand()).isEmpty();
        assertThat(inFlight.settle(new Usage(800, 0))).isEqualTo(SettleOutcome.SETTLED);
        assertThat(f.governor.store().openLeases()).isZero();
    }

    @Test
    void aDeploymentAddedAgainUnderTheSameLimitsFindsItsBucketAsItWas() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), minute(INPUT_TOKENS, 6_000)).build());
        f.admit("a", 4_000, 0);

        f.governor.reconfigure(config().scope(deployment(), minute(INPUT_TOKENS, 6_000)).build(), java.util.Set.of("dep"))
                .run();

        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(2_000);
        assertThat(f.admit("a", 4_000, 0)).isInstanceOf(Decision.Queued.class);
    }
}
