package dev.sluice.runtime.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.RequestPlan;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which deployment each attempt runs on, by headroom, order, weight and the fallback policy. */
class ProfileRoutingTest {

    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              oa: { kind: openai, base_url: "http://127.0.0.1:1", capabilities: { region: eastus } }
              az: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: chat, capabilities: { region: eastus } }
              west: { kind: azure-openai, base_url: "http://127.0.0.1:3", azure_deployment: chat, capabilities: { region: westus } }
            profiles:
              one: { deployment: oa, model: gpt-4o }
              chat: { model: gpt-4o, deployments: [oa, az, west] }
              spread: { model: gpt-4o, deployments: [{ deployment: oa, weight: 3 }, { deployment: az, weight: 1 }] }
            orgs:
              o:
                tenants:
                  acme: {}
                  east-only: { region: eastus }
            """, "routing.yaml", name -> null);

    private final ProfileRouting routing = new ProfileRouting(CONFIG);

    private static RequestPlan plan(String profile, String tenant, TrafficClass c, String traceId) {
        return new RequestPlan(traceId, "openai.chat", new Caller("o", tenant, "team", "key"), CONFIG.profiles().get(profile),
                c, AdmissionRequest.NO_DEADLINE, new TokenEstimate(100, 20, 0, 100, 100, Tokenizer.O200K_BASE), false);
    }

    private static RequestPlan chat() {
        return plan("chat", "acme", TrafficClass.INTERACTIVE, "t");
    }

    private static Headroom only(String... ids) {
        Set<String> room = Set.of(ids);
        return room::contains;
    }

    private static String to(RouteChoice c) {
        return ((RouteChoice.To) c).deployment().id();
    }

    @Test
    void theFirstDeploymentIsTakenWhenItHasHeadroom() {
        RouteChoice c = routing.choose(chat(), List.of(), Headroom.EVERYWHERE);

        assertThat(to(c)).isEqualTo("oa");
        assertThat(((RouteChoice.To) c).fallbackReason()).isEmpty();
    }

    @Test
    void theNextWithHeadroomIsTakenWhenTheFirstHasNone() {
        RouteChoice c = routing.choose(chat(), List.of(), only("west"));

        assertThat(to(c)).isEqualTo("west");
        assertThat(((RouteChoice.To) c).fallbackReason()).contains("headroom");
    }

    @Test
    void whenNoneHasHeadroomTheFirstChoiceDecidesByItsOwnBuckets() {
        RouteChoice c = routing.choose(chat(), List.of(), only());

        assertThat(to(c)).isEqualTo("oa");
        assertThat(((RouteChoice.To) c).fallbackReason()).isEmpty();
    }

    @Test
    void aTriedDeploymentIsNeverChosenAgain() {
        assertThat(to(routing.choose(chat(), List.of("oa"), Headroom.EVERYWHERE))).isEqualTo("az");
        assertThat(to(routing.choose(chat(), List.of("oa"), only("west")))).isEqualTo("west");
        assertThat(to(routing.choose(chat(), List.of("oa", "az"), only()))).isEqualTo("west");
    }

    @Test
    void whenEveryDeploymentWasTriedThereIsNowhere() {
        RouteChoice c = routing.choose(chat(), List.of("oa", "az", "west"), Headroom.EVERYWHERE);

        assertThat(c).isEqualTo(new RouteChoice.Nowhere("no_other_deployment", "every deployment of profile chat was tried"));
    }

    @Test
    void aOneDeploymentProfileHasNowhereElse() {
        RouteChoice c = routing.choose(plan("one", "acme", TrafficClass.INTERACTIVE, "t"), List.of("oa"),
                Headroom.EVERYWHERE);

        assertThat(((RouteChoice.Nowhere) c).rule()).isEqualTo("no_other_deployment");
    }

    @Test
    void aForbiddenFallbackIsSkippedAndNamedWhenNoneIsLeft() {
        RequestPlan batch = plan("chat", "acme", TrafficClass.BATCH, "t");

        RouteChoice c = routing.choose(batch, List.of("oa"), Headroom.EVERYWHERE);

        assertThat(((RouteChoice.Nowhere) c).rule()).isEqualTo("class");
        // Its first choice is its own, fallback or not.
        assertThat(to(routing.choose(batch, List.of(), only()))).isEqualTo("oa");
    }

    @Test
    void aRegionPinnedTenantSkipsDeploymentsElsewhere() {
        RequestPlan pinned = plan("chat", "east-only", TrafficClass.INTERACTIVE, "t");

        assertThat(to(routing.choose(pinned, List.of(), only("west", "az")))).isEqualTo("az");
        assertThat(((RouteChoice.Nowhere) routing.choose(pinned, List.of("oa", "az"), Headroom.EVERYWHERE)).rule())
                .isEqualTo("tenant_region");
    }

    @Test
    void weightsSpreadFirstChoicesByTraceIdAndEveryAttemptOfARequestAgrees() {
        int toOa = 0;
        for (int i = 0; i < 4_000; i++) {
            RequestPlan p = plan("spread", "acme", TrafficClass.INTERACTIVE, "trace-" + i);
            String first = to(routing.choose(p, List.of(), Headroom.EVERYWHERE));
            assertThat(to(routing.choose(p, List.of(), Headroom.EVERYWHERE))).isEqualTo(first);
            if (first.equals("oa")) {
                toOa++;
            }
        }
        // 3 to 1: three quarters of 4,000, within 2%.
        assertThat(toOa).isBetween(2_920, 3_080);
    }

    @Test
    void aWeightedRequestWhoseDrawHasNoRoomGoesToTheOther() {
        String drawn = null;
        RequestPlan p = null;
        for (int i = 0; drawn == null || !drawn.equals("az"); i++) {
            p = plan("spread", "acme", TrafficClass.INTERACTIVE, "trace-" + i);
            drawn = to(routing.choose(p, List.of(), Headroom.EVERYWHERE));
        }

        RouteChoice c = routing.choose(p, List.of(), only("oa"));

        assertThat(to(c)).isEqualTo("oa");
        assertThat(((RouteChoice.To) c).fallbackReason()).isEqualTo(Optional.of("headroom"));
    }
}
