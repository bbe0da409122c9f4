package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Several deployments per profile, their capabilities and fallback policy, as configuration reads them. */
class FallbackConfigTest {

    private static final String DEPLOYMENTS = """
            deployments:
              oa:
                kind: openai
                base_url: "http://127.0.0.1:1"
                capabilities: { context_window: 128000, max_output_tokens: 16384, region: eastus, retention: limited }
              az: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: chat,
                    capabilities: { region: eastus, relative_cost: 1.5, json_schema: false } }
              claude: { kind: anthropic, base_url: "http://127.0.0.1:3", capabilities: { region: eu } }
            """;

    private static SluiceConfig parse(String rest) {
        return ConfigLoader.parse(DEPLOYMENTS + rest, "fallback.yaml", name -> null);
    }

    /** The failure of {@code rest} after the shared deployments. */
    private static ConfigException failure(String rest) {
        return rejected(DEPLOYMENTS + rest);
    }

    private static ConfigException rejected(String yaml) {
        try {
            ConfigLoader.parse(yaml, "fallback.yaml", name -> null);
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("accepted: " + yaml);
    }

    @Test
    void aProfileListsItsDeploymentsInOrderEachWithTheProfilesModelUnlessItNamesItsOwn() {
        SluiceConfig c = parse("""
                profiles:
                  chat:
                    model: gpt-4o
                    deployments: [oa, az, { deployment: claude, model: claude-sonnet-4 }]
                """);

        ProfileConfig p = c.profiles().get("chat");
        assertThat(p.deployment()).isEqualTo("oa");
        assertThat(p.targets()).containsExactly(new ProfileTarget("oa", "gpt-4o", 1), new ProfileTarget("az", "gpt-4o", 1),
                new ProfileTarget("claude", "claude-sonnet-4", 1));
        assertThat(p.routing()).isEqualTo(ProfileConfig.Routing.ORDER);
        assertThat(p.on("claude").model()).isEqualTo("claude-sonnet-4");
        assertThat(p.on("claude").deployment()).isEqualTo("claude");
        assertThat(p.fallback()).isEqualTo(FallbackSettings.DEFAULTS);
    }

    @Test
    void theOneDeploymentFormStaysValid() {
        ProfileConfig p = parse("profiles: { chat: { deployment: oa, model: gpt-4o } }\n").profiles().get("chat");

        assertThat(p.targets()).containsExactly(new ProfileTarget("oa", "gpt-4o", 1));
        assertThat(p.hasFallbacks()).isFalse();
    }

    @Test
    void weightsMakeAProfileRouteByWeight() {
        ProfileConfig p = parse("""
                profiles:
                  chat: { model: gpt-4o, deployments: [{ deployment: oa, weight: 3 }, { deployment: az, weight: 1 }] }
                """).profiles().get("chat");

        assertThat(p.routing()).isEqualTo(ProfileConfig.Routing.WEIGHT);
        assertThat(p.targets()).extracting(ProfileTarget::weight).containsExactly(3, 1);
    }

    @Test
    void capabilitiesAreReadWithTheirDefaultsForWhatIsLeftOut() {
        SluiceConfig c = parse("profiles: { chat: { deployment: oa, model: gpt-4o } }\n");

        Capabilities oa = c.deployments().get("oa").capabilities();
        assertThat(oa.contextWindow()).isEqualTo(OptionalLong.of(128_000));
        assertThat(oa.maxOutputTokens()).isEqualTo(OptionalLong.of(16_384));
        assertThat(oa.region()).contains("eastus");
        assertThat(oa.retention()).isEqualTo(Capabilities.Retention.LIMITED);
        assertThat(oa.tools()).isTrue();
        assertThat(oa.relativeCost()).isEqualTo(1.0);
        assertThat(c.deployments().get("az").capabilities().jsonSchema()).isFalse();
        assertThat(c.deployments().get("az").capabilities().relativeCost()).isEqualTo(1.5);
    }

    @Test
    void aProfilesFallbackPolicyAndATenantsRegionAreRead() {
        SluiceConfig c = parse("""
                profiles:
                  chat:
                    model: gpt-4o
                    deployments: [oa, az]
                    fallback: { classes: [interactive, critical], max_cost_ratio: 2, same_region: true }
                orgs:
                  o: { tenants: { eu-bank: { region: eu } } }
                """);

        FallbackSettings f = c.profiles().get("chat").fallback();
        assertThat(f.classes()).containsExactlyInAnyOrder(TrafficClass.INTERACTIVE, TrafficClass.CRITICAL);
        assertThat(f.maxCostRatio()).isEqualTo(2.0);
        assertThat(f.sameRegion()).isTrue();
        assertThat(c.orgs().get("o").tenants().get("eu-bank").region()).contains("eu");
    }

    @Test
    void aTargetThatIsNoDeploymentIsRejectedWithItsPath() {
        ConfigException e = failure("profiles: { chat: { model: gpt-4o, deployments: [oa, nope] } }\n");

        assertThat(e.path()).isEqualTo("profiles.chat.deployments[1]");
        assertThat(e.expected()).contains("one of the deployments");
        assertThat(e.found()).isEqualTo("\"nope\"");
    }

    @Test
    void aDeploymentListedTwiceIsRejected() {
        // A profile lists deployments, never other profiles, so a chain cannot loop; the one way to go round
        // in a circle, naming a deployment again, is refused.
        ConfigException e = failure("profiles: { chat: { model: gpt-4o, deployments: [oa, az, oa] } }\n");

        assertThat(e.path()).isEqualTo("profiles.chat.deployments[2]");
        assertThat(e.found()).contains("also at profiles.chat.deployments[0]");
    }

    @Test
    void aProfileNamingBothFormsIsRejected() {
        ConfigException e = failure("profiles: { chat: { model: gpt-4o, deployment: oa, deployments: [az] } }\n");

        assertThat(e.path()).isEqualTo("profiles.chat.deployments");
        assertThat(e.expected()).isEqualTo("either deployment or deployments");
    }

    @Test
    void aCapabilityOfTheWrongTypeIsRejectedWithItsPath() {
        ConfigException e = rejected("""
                deployments:
                  oa: { kind: openai, base_url: "http://127.0.0.1:1", capabilities: { context_window: large } }
                profiles: { chat: { deployment: oa, model: gpt-4o } }
                """);

        assertThat(e.path()).isEqualTo("deployments.oa.capabilities.context_window");
        assertThat(e.expected()).isEqualTo("a whole number");
    }

    @Test
    void aFeatureThatIsNotTrueOrFalseIsRejected() {
        ConfigException e = rejected("""
                deployments:
                  oa: { kind: openai, base_url: "http://127.0.0.1:1", capabilities: { tools: sometimes } }
                profiles: { chat: { deployment: oa, model: gpt-4o } }
                """);

        assertThat(e.path()).isEqualTo("deployments.oa.capabilities.tools");
        assertThat(e.expected()).isEqualTo("true or false");
    }

    @Test
    void anUnknownRetentionClassIsRejected() {
        ConfigException e = rejected("""
                deployments:
                  oa: { kind: openai, base_url: "http://127.0.0.1:1", capabilities: { retention: forever } }
                profiles: { chat: { deployment: oa, model: gpt-4o } }
                """);

        assertThat(e.path()).isEqualTo("deployments.oa.capabilities.retention");
        assertThat(e.expected()).isEqualTo("one of [zero, limited, standard]");
    }

    @Test
    void anUnknownCapabilityIsRejected() {
        ConfigException e = rejected("""
                deployments:
                  oa: { kind: openai, base_url: "http://127.0.0.1:1", capabilities: { telepathy: true } }
                profiles: { chat: { deployment: oa, model: gpt-4o } }
                """);

        assertThat(e.path()).isEqualTo("deployments.oa.capabilities.telepathy");
    }

    @Test
    void aTenantPinnedToARegionNoDeploymentDeclaresIsRejected() {
        ConfigException e = failure("""
                profiles: { chat: { deployment: oa, model: gpt-4o } }
                orgs:
                  o: { tenants: { eu-bank: { region: westeurope } } }
                """);

        assertThat(e.path()).isEqualTo("orgs.o.tenants.eu-bank.region");
        assertThat(e.expected()).contains("[eastus, eu]");
    }

    @Test
    void aFallbackPolicyNamingAnUnknownClassIsRejected() {
        ConfigException e = failure("""
                profiles: { chat: { model: gpt-4o, deployments: [oa, az], fallback: { classes: [urgent] } } }
                """);

        assertThat(e.path()).isEqualTo("profiles.chat.fallback.classes[0]");
    }

    @Test
    void aCostRatioThatIsNotPositiveIsRejected() {
        ConfigException e = failure("""
                profiles: { chat: { model: gpt-4o, deployments: [oa, az], fallback: { max_cost_ratio: 0 } } }
                """);

        assertThat(e.path()).isEqualTo("profiles.chat.fallback.max_cost_ratio");
    }

    @Test
    void aZeroWeightIsRejected() {
        assertThatThrownBy(() -> parse("""
                profiles: { chat: { model: gpt-4o, deployments: [{ deployment: oa, weight: 0 }, az] } }
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("profiles.chat.deployments[0].weight");
    }
}
