package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.deployment;
import static dev.sluice.governor.GovernorFixture.minute;
import static dev.sluice.governor.GovernorFixture.tenant;
import static dev.sluice.limits.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link QuotaGovernor#pace} and {@link QuotaGovernor#drain}: a caller's scope (a tenant warming
 * up) held below its limit, and started from little rather than a full bucket. A rule per test.
 */
class PacingTest {

    private static GovernorFixture fixture() {
        return new GovernorFixture(config().scope(tenant("jobs"), minute(REQUESTS, 240))
                .scope(deployment(), minute(REQUESTS, 6_000)).build());
    }

    @Test
    void aPacedTenantsBucketRefillsAtTheFactorOfItsLimit() {
        GovernorFixture f = fixture();
        f.admit("jobs", 1, 0);

        f.governor.pace(tenant("jobs"), REQUESTS, 0.05);
        f.governor.drain(tenant("jobs"), REQUESTS, 0);
        f.clock.advance(Duration.ofSeconds(10));

        assertThat(f.state(tenant("jobs"), REQUESTS).rateFactor()).isEqualTo(0.05);
        assertThat(f.state(tenant("jobs"), REQUESTS).available()).as("12 a minute: 2 in 10 s").isEqualTo(2.0);
    }

    @Test
    void aDrainedBucketAdmitsWhatItHoldsAndQueuesTheRest() {
        GovernorFixture f = fixture();
        f.admit("jobs", 1, 0);
        f.governor.pace(tenant("jobs"), REQUESTS, 0.05);
        f.governor.drain(tenant("jobs"), REQUESTS, 1);

        assertThat(f.admit("jobs", 1, 0)).isInstanceOf(Decision.Admitted.class);
        assertThat(f.admit("jobs", 1, 0)).as("waits for the paced refill").isInstanceOf(Decision.Queued.class);
    }

    @Test
    void aFactorOfOneRestoresTheLimitsRate() {
        GovernorFixture f = fixture();
        f.admit("jobs", 1, 0);
        f.governor.pace(tenant("jobs"), REQUESTS, 0.05);

        f.governor.pace(tenant("jobs"), REQUESTS, 1);

        assertThat(f.state(tenant("jobs"), REQUESTS).rateFactor()).isEqualTo(1.0);
    }

    @Test
    void aProviderScopeIsNotPacedHere() {
        GovernorFixture f = fixture();

        assertThatThrownBy(() -> f.governor.pace(deployment(), REQUESTS, 0.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected: a caller's scope");
        assertThatThrownBy(() -> f.governor.drain(deployment(), REQUESTS, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
