package dev.sluice.runtime.config;

import dev.sluice.adapt.AdaptiveConfig;
import dev.sluice.adapt.CooldownConfig;
import dev.sluice.adapt.MultiplierConfig;
import dev.sluice.adapt.SheddingConfig;
import dev.sluice.limits.Limits;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One provider deployment: where requests go, with which credential, under which limits.
 *
 * @param id the configured name; also its bucket scope {@code deployment:id}
 * @param kind the provider dialect
 * @param baseUrl the provider's base URL (scheme, host, port and an optional path prefix)
 * @param apiKeyEnv the environment variable holding the credential, if one is needed
 * @param apiKey the credential, when {@code apiKeyEnv} is set and the variable exists
 * @param scope free-form provider scope (organisation, project, region ...), for explanations
 * @param azureDeployment Azure only: the deployment name in the URL
 * @param apiVersion Azure only: the {@code api-version} query parameter
 * @param limits the provider's limits for this deployment
 * @param adaptive adaptive control settings
 * @param ramp ramp-up settings
 * @param failurePolicy overrides the store's failure policy for this deployment
 * @param capabilities what its model offers, for the fallback policy
 * @param providerScopes the ids of the shared provider scopes ({@link ProviderScopeConfig}) it
 *     belongs to, outermost first, each once
 */
public record DeploymentConfig(String id, DeploymentKind kind, URI baseUrl, Optional<String> apiKeyEnv,
        Optional<Secret> apiKey, Map<String, String> scope, Optional<String> azureDeployment,
        Optional<String> apiVersion, Limits limits, AdaptiveSettings adaptive, RampSettings ramp,
        Optional<StoreSettings.FailurePolicy> failurePolicy, Capabilities capabilities, List<String> providerScopes) {

    /** The Azure OpenAI API version used when a deployment names none. */
    public static final String DEFAULT_AZURE_API_VERSION = "2024-10-21";

    public DeploymentConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(apiKeyEnv, "apiKeyEnv");
        Objects.requireNonNull(apiKey, "apiKey");
        scope = Map.copyOf(scope);
        Objects.requireNonNull(azureDeployment, "azureDeployment");
        Objects.requireNonNull(apiVersion, "apiVersion");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(adaptive, "adaptive");
        Objects.requireNonNull(ramp, "ramp");
        Objects.requireNonNull(failurePolicy, "failurePolicy");
        Objects.requireNonNull(capabilities, "capabilities");
        providerScopes = List.copyOf(providerScopes);
    }

    /** A deployment under no shared provider scope. */
    public DeploymentConfig(String id, DeploymentKind kind, URI baseUrl, Optional<String> apiKeyEnv,
            Optional<Secret> apiKey, Map<String, String> scope, Optional<String> azureDeployment,
            Optional<String> apiVersion, Limits limits, AdaptiveSettings adaptive, RampSettings ramp,
            Optional<StoreSettings.FailurePolicy> failurePolicy, Capabilities capabilities) {
        this(id, kind, baseUrl, apiKeyEnv, apiKey, scope, azureDeployment, apiVersion, limits, adaptive, ramp,
                failurePolicy, capabilities, List.of());
    }

    /** A deployment that declares no capabilities and is under no shared provider scope. */
    public DeploymentConfig(String id, DeploymentKind kind, URI baseUrl, Optional<String> apiKeyEnv,
            Optional<Secret> apiKey, Map<String, String> scope, Optional<String> azureDeployment,
            Optional<String> apiVersion, Limits limits, AdaptiveSettings adaptive, RampSettings ramp,
            Optional<StoreSettings.FailurePolicy> failurePolicy) {
        this(id, kind, baseUrl, apiKeyEnv, apiKey, scope, azureDeployment, apiVersion, limits, adaptive, ramp,
                failurePolicy, Capabilities.UNDECLARED, List.of());
    }

    /**
     * The adaptive controller's tuning: multiplier decrease, increase, floor and climb by clean time, the sustained
     * pressure shedding needs, the rate window and the fault cap from {@code adaptive}; the ramp
     * from {@code ramp}; the rest at its defaults.
     */
    public AdaptiveConfig adaptiveConfig() {
        AdaptiveConfig base = AdaptiveConfig.defaults();
        SheddingConfig shedding = new SheddingConfig(adaptive.shedAfterRefusals(), adaptive.shedWithin(),
                base.modes().shedding().shedLast());
        CooldownConfig c = base.cooldown();
        CooldownConfig cooldown = new CooldownConfig(c.floor(), c.jitterRatio(), c.max(), c.exhaustedPause(),
                c.rampAfter(), adaptive.rateWindow(), adaptive.faultMax());
        return base.withMultiplier(new MultiplierConfig(adaptive.decreaseFactor(), adaptive.increaseStep(),
                        adaptive.floor(), base.multiplier().perDimension(), adaptive.cleanRecoveryAfter(),
                        adaptive.increasePerCleanSecond()))
                .withCooldown(cooldown)
                .withModes(base.modes().withShedding(shedding))
                .withRamp(ramp.rampConfig());
    }

    /** A copy with other limits (a reloaded file); everything else, its capabilities and scopes included, kept. */
    public DeploymentConfig withLimits(Limits next) {
        return new DeploymentConfig(id, kind, baseUrl, apiKeyEnv, apiKey, scope, azureDeployment, apiVersion, next,
                adaptive, ramp, failurePolicy, capabilities, providerScopes);
    }

    /** A copy sending to {@code next} (a simulation or demo pointing it at a mock provider). */
    public DeploymentConfig withBaseUrl(URI next) {
        return new DeploymentConfig(id, kind, next, apiKeyEnv, apiKey, scope, azureDeployment, apiVersion, limits,
                adaptive, ramp, failurePolicy, capabilities, providerScopes);
    }

    /** Whether a credential is configured but its environment variable is not set. */
    public boolean credentialMissing() {
        return apiKeyEnv.isPresent() && apiKey.isEmpty();
    }
}
