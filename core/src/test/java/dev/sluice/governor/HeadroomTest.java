package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.deployment;
import static dev.sluice.governor.GovernorFixture.limits;
import static dev.sluice.governor.GovernorFixture.minute;
import static dev.sluice.governor.GovernorFixture.tenant;
import static dev.sluice.limits.Dimension.INPUT_TOKENS;
import static dev.sluice.limits.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link QuotaGovernor#hasHeadroom}: whether a deployment could take a request now, read from its
 * own bucket and lane, with nothing taken. A rule per test.
 */
class HeadroomTest {

    private static final Demand THOUSAND_IN = new Demand(1_000, 0, false);

    @Test
    void aDeploymentWhoseBucketHoldsTheRequestHasHeadroomAndNothingIsTaken() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), minute(INPUT_TOKENS, 60_000)).build());

        assertThat(f.governor.hasHeadroom("dep", TrafficClass.INTERACTIVE, THOUSAND_IN)).isTrue();
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(60_000);
    }

    @Test
    void aDeploymentShortOnAnyDimensionHasNone() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), minute(INPUT_TOKENS, 60_000)).build());
        f.admit("acme", 59_500, 0);

        assertThat(f.governor.hasHeadroom("dep", TrafficClass.INTERACTIVE, THOUSAND_IN)).isFalse();
        assertThat(f.governor.hasHeadroom("dep", TrafficClass.INTERACTIVE, new Demand(500, 0, false))).isTrue();
    }

    @Test
    void aRequestLargerThanTheDeploymentsWindowHasHeadroomOnlyWhenTheBucketIsFull() {
        // 60,000 a minute over the default one-second window: 1,000 at once.
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(INPUT_TOKENS, 60_000)).build());
        Demand large = new Demand(5_000, 0, false);

        assertThat(f.governor.hasHeadroom("dep", TrafficClass.BATCH, large)).isTrue();
        f.admit("acme", 1, 0);
        assertThat(f.governor.hasHeadroom("dep", TrafficClass.BATCH, large)).isFalse();
    }

    @Test
    void aRequestLargerThanTheWholeMinuteHasNoHeadroomEvenWhenTheBucketIsFull() {
        // Above the ceiling (the minute's 60,000) it never fits: admission would refuse it as too large.
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(INPUT_TOKENS, 60_000)).build());

        assertThat(f.governor.hasHeadroom("dep", TrafficClass.BATCH, new Demand(60_001, 0, false))).isFalse();
        assertThat(f.governor.hasHeadroom("dep", TrafficClass.BATCH, new Demand(60_000, 0, false))).isTrue();
    }

    @Test
    void aDeploymentCoolingDownHasNoneWhateverItsLevel() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(REQUESTS, 600)).build());

        f.governor.control("dep", REQUESTS, 1.0, 5_000_000_000L);

        assertThat(f.governor.hasHeadroom("dep", TrafficClass.INTERACTIVE, THOUSAND_IN)).isFalse();
        f.clock.advanceMillis(5_000);
        assertThat(f.governor.hasHeadroom("dep", TrafficClass.INTERACTIVE, THOUSAND_IN)).isTrue();
    }

    @Test
    void theCallersOwnBucketsDoNotCountSinceTheyAreOnEveryDeploymentsPath() {
        GovernorFixture f = new GovernorFixture(config().scope(tenant("acme"), limits(INPUT_TOKENS, 500)).build());

        assertThat(f.governor.hasHeadroom("dep", TrafficClass.INTERACTIVE, THOUSAND_IN)).isTrue();
    }

    @Test
    void aDeploymentWithRequestsOfTheClassWaitingHasNone() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(REQUESTS, 60)).build());
        for (int i = 0; i < 60; i++) {
            f.admit("acme", 0, 0);
        }
        Decision queued = f.admit("acme", 0, 0); // batch waits for the next second's request

        assertThat(queued).isInstanceOf(Decision.Queued.class);
        f.clock.advanceMillis(1_000); // the bucket has its request back, but the batch request is first in line
        assertThat(f.governor.hasHeadroom("dep", TrafficClass.BATCH, new Demand(0, 0, false))).isFalse();
        f.governor.onTimer();
    }
}
