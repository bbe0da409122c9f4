package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import org.junit.jupiter.api.Test;

/** Shared provider scopes as configuration reads them: declared once, named by deployments, checked with field paths. */
class ProviderScopeConfigTest {

    private static final String PROFILES = """
            profiles:
              chat: { model: gpt-4o, deployments: [east-1, east-2] }
            """;

    private static SluiceConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, "scopes.yaml", name -> null);
    }

    private static ConfigException rejected(String yaml) {
        try {
            parse(yaml);
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("accepted: " + yaml);
    }

    private static String deployments(String scopeOfEast2) {
        return """
                deployments:
                  east-1: { kind: azure-openai, base_url: "http://127.0.0.1:1", azure_deployment: a,
                            provider_scopes: ["azure:sub-1/eastus"] }
                  east-2: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: b,
                            provider_scopes: %s }
                """.formatted(scopeOfEast2);
    }

    private static final String SCOPES = """
            provider_scopes:
              azure:sub-1/eastus: { limits: { rpm: 120, tpm: 90000 }, names: [sub-1] }
            """;

    @Test
    void aScopeIsDeclaredOnceAndItsDeploymentsPassItsBucket() {
        SluiceConfig c = parse(SCOPES + deployments("[\"azure:sub-1/eastus\"]") + PROFILES);

        ProviderScopeConfig s = c.providerScopes().get("azure:sub-1/eastus");
        assertThat(s.names()).containsExactly("sub-1");
        assertThat(c.deployments().get("east-2").providerScopes()).containsExactly("azure:sub-1/eastus");
        GovernorConfig g = c.governorConfig();
        Scope scope = Scope.of(ScopeLevel.PROVIDER_SCOPE, "azure:sub-1/eastus");
        assertThat(g.providerScopesOf("east-1")).containsExactly(scope);
        assertThat(g.providerScopesOf("east-2")).containsExactly(scope);
        // As a deployment's: 120 rpm and 90,000 tpm over the default one-second window, 2 and 1,500 at once.
        BucketPlan plan = BucketPlan.of(scope, g.settings(scope).limits());
        assertThat(plan.capacity(Dimension.REQUESTS)).isEqualTo(2);
        assertThat(plan.capacity(Dimension.TOTAL_TOKENS)).isEqualTo(1_500);
    }

    @Test
    void aDeploymentNamingAnUndeclaredScopeIsRefusedAtItsEntry() {
        ConfigException e = rejected(SCOPES + deployments("[\"azure:sub-2/westus\"]") + PROFILES);

        assertThat(e.path()).isEqualTo("deployments.east-2.provider_scopes[0]");
        assertThat(e.expected()).contains("azure:sub-1/eastus");
    }

    @Test
    void aScopeOfAnotherProviderIsRefused() {
        ConfigException e = rejected(SCOPES + """
                  openai:org-x: { limits: { rpm: 100 } }
                """ + deployments("[\"openai:org-x\"]") + PROFILES);

        assertThat(e.path()).isEqualTo("deployments.east-2.provider_scopes[0]");
        assertThat(e.expected()).contains("kind azure-openai");
    }

    @Test
    void anIdWithoutAKnownProviderIsRefused() {
        ConfigException e = rejected("""
                provider_scopes:
                  sub-1: { limits: { rpm: 100 } }
                """ + deployments("[]") + PROFILES);

        assertThat(e.path()).isEqualTo("provider_scopes.sub-1");
        assertThat(e.expected()).contains("[azure, openai, anthropic, gemini]");
    }

    @Test
    void aScopeWithoutLimitsIsRefused() {
        ConfigException e = rejected("""
                provider_scopes:
                  azure:sub-1/eastus: { names: [sub-1] }
                """ + deployments("[]") + PROFILES);

        assertThat(e.path()).isEqualTo("provider_scopes.azure:sub-1/eastus.limits");
    }

    @Test
    void aScopeNamedTwiceByOneDeploymentIsRefused() {
        ConfigException e = rejected(SCOPES + deployments("[\"azure:sub-1/eastus\", \"azure:sub-1/eastus\"]") + PROFILES);

        assertThat(e.path()).isEqualTo("deployments.east-2.provider_scopes[1]");
    }
}
