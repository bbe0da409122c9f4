package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.deployment;
import static dev.sluice.governor.GovernorFixture.tenant;
import static dev.sluice.limits.Dimension.INPUT_TOKENS;
import static dev.sluice.limits.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Weighted fairness between saturating tenants (issue 16 item 5): a tenant is neither charged in
 * fair order for requests it never got, nor promised a wait shorter than its weight's part of the
 * deployment gives it.
 */
class FairShareTest {

    /** One request a second at the deployment, its one token already taken. */
    private static GovernorFixture oneASecond(GovernorConfig.Builder b) {
        GovernorFixture f = new GovernorFixture(b.scope(deployment(), Limits.of(Limit.of(REQUESTS, 60, 1))).build());
        assertThat(f.admit("warmup", 0, 0)).isInstanceOf(Decision.Admitted.class);
        return f;
    }

    @Test
    void aWaiterThatLeavesUnservedGivesItsPlaceToItsTenantsNextWaiter() {
        GovernorFixture f = oneASecond(config());
        AdmissionRequest impatient = new AdmissionRequest("a1", GovernorFixture.path("a"), new Demand(0, 0, false),
                TrafficClass.BATCH, f.clock.nanos() + Duration.ofMillis(1_500).toNanos());
        assertThat(f.governor.admit(impatient)).isInstanceOf(Decision.Queued.class);
        Decision.Queued a2 = (Decision.Queued) f.admit("a", 0, 0);
        Decision.Queued b1 = (Decision.Queued) f.admit("b", 0, 0);

        // a1 gives up at 1.5 s, unserved; the one request back by then goes to a2, level with b1 and
        // earlier in arrival. Charged for a1, a would come after b1.
        f.clock.advanceMillis(1_600);
        f.governor.onTimer();

        assertThat(a2.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        assertThat(b1.outcome().toCompletableFuture().getNow(null)).isNull();
    }

    @Test
    void aLightTenantIsPromisedNoLessThanItsBacklogTakesAtItsWeightsPartOfTheDeployment() {
        // 100 tokens a second, none left; each request of 100 tokens occupies the deployment for 1 s.
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), Limits.of(Limit.of(INPUT_TOKENS, 6_000, 1_000)))
                .scope(tenant("light"), ScopeSettings.weighted(Limits.none(), 1))
                .scope(tenant("heavy"), ScopeSettings.weighted(Limits.none(), 3)).build());
        f.admit("warmup", 1_000, 0);
        f.admit("light", 100, 0);
        f.admit("light", 100, 0);
        for (int i = 0; i < 3; i++) {
            f.admit("heavy", 100, 0);
        }

        Decision.Queued third = (Decision.Queued) f.admit("light", 100, 0);

        // Fair order as it stands puts 5 requests ahead of it (light's 2, heavy's 3). But heavy keeps
        // arriving, and light, holding a quarter of the deployment, needs 8 s for its 2 waiting
        // requests; then 1 s for its own.
        assertThat(third.expectedWaitNanos()).isEqualTo(Duration.ofSeconds(9).toNanos());
    }
}
