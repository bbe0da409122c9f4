package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.minute;
import static dev.sluice.limits.Dimension.INPUT_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import org.junit.jupiter.api.Test;

/**
 * Shared provider scopes in the governor: a quota above several deployments (here an Azure
 * subscription in eastus holding east-1 and east-2; west-1 is elsewhere) is one bucket on the path
 * of every request that runs on any of them, named in refusals and read by {@link QuotaGovernor#hasHeadroom}.
 */
class ProviderScopeTest {

    private static final Scope SUBSCRIPTION = Scope.of(ScopeLevel.PROVIDER_SCOPE, "azure:sub-1/eastus");

    private static GovernorFixture fixture() {
        GovernorConfig.Builder b = config().scope(SUBSCRIPTION, minute(INPUT_TOKENS, 60_000));
        for (String d : new String[] {"east-1", "east-2", "west-1"}) {
            b.scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, d), minute(INPUT_TOKENS, 60_000));
        }
        b.providerScope("east-1", SUBSCRIPTION).providerScope("east-2", SUBSCRIPTION);
        return new GovernorFixture(b.build());
    }

    private static AdmissionRequest on(String deployment, long in) {
        return new AdmissionRequest("r-" + deployment + "-" + in,
                new RequestPath("org", "acme", "acme-team", "acme-key", "chat", deployment), new Demand(in, 0, false),
                TrafficClass.INTERACTIVE, AdmissionRequest.NO_DEADLINE);
    }

    @Test
    void aRequestOnEitherDeploymentOfTheScopeDrawsOnItsBucketAndARefusalNamesIt() {
        GovernorFixture f = fixture();
        assertThat(f.governor.admit(on("east-1", 59_500))).isInstanceOf(Decision.Admitted.class);

        // east-2's own bucket is full, but the subscription has 500 left: 500 more need 0.5 s, over interactive's 300 ms.
        Decision d = f.governor.admit(on("east-2", 1_000));

        Rejection r = ((Decision.Rejected) d).rejection();
        assertThat(r.scope()).contains(SUBSCRIPTION);
        assertThat(r.code()).isEqualTo("provider_scope_input_tpm_exhausted");
        assertThat(r.message()).contains("provider_scope:azure:sub-1/eastus");
        assertThat(f.governor.admit(on("west-1", 1_000))).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void aDeploymentWhoseScopeIsShortHasNoHeadroomThoughItsOwnBucketIsFull() {
        GovernorFixture f = fixture();
        f.governor.admit(on("east-1", 59_500));

        Demand thousand = new Demand(1_000, 0, false);
        assertThat(f.governor.hasHeadroom("east-2", TrafficClass.INTERACTIVE, thousand)).isFalse();
        assertThat(f.governor.hasHeadroom("east-2", TrafficClass.INTERACTIVE, new Demand(500, 0, false))).isTrue();
        assertThat(f.governor.hasHeadroom("west-1", TrafficClass.INTERACTIVE, thousand)).isTrue();
    }

    @Test
    void aPauseOfTheSharedScopeHoldsEveryDeploymentOfIt() {
        GovernorFixture f = fixture();
        Demand one = new Demand(1, 0, false);

        f.governor.controlShared(SUBSCRIPTION, INPUT_TOKENS, 1.0, 2_000_000_000L);

        assertThat(f.governor.hasHeadroom("east-1", TrafficClass.INTERACTIVE, one)).isFalse();
        assertThat(f.governor.hasHeadroom("east-2", TrafficClass.INTERACTIVE, one)).isFalse();
        assertThat(f.governor.hasHeadroom("west-1", TrafficClass.INTERACTIVE, one)).isTrue();
        f.clock.advanceMillis(2_000);
        assertThat(f.governor.hasHeadroom("east-2", TrafficClass.INTERACTIVE, one)).isTrue();
    }
}
