package dev.sluice.runtime.config;

import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A provider quota shared above one deployment, declared once under {@code provider_scopes:} and
 * named by the deployments it covers: an Azure subscription and region, an OpenAI organisation or
 * project, an Anthropic workspace, a Gemini project and tier. Its bucket
 * ({@code provider_scope:<id>}) is on the path of every request that runs on any of them.
 *
 * @param id {@code <provider>:<name>}, the provider one of {@link #PROVIDERS} ({@code azure:sub-1/eastus})
 * @param limits the shared quota; at least one limit
 * @param names the identifiers the provider's refusals use for this quota (an organisation or
 *     project id, {@code org-abc}, {@code proj_x}): a 429 whose message names one of them is
 *     applied to this scope's bucket, not only to the deployment that heard it
 */
public record ProviderScopeConfig(String id, Limits limits, List<String> names) {

    /** The providers a scope id may start with. */
    public static final List<String> PROVIDERS = List.of("azure", "openai", "anthropic", "gemini");

    public ProviderScopeConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(limits, "limits");
        names = List.copyOf(names);
    }

    /** The scope of its bucket. */
    public Scope scope() {
        return Scope.of(ScopeLevel.PROVIDER_SCOPE, id);
    }

    /** The provider part of an id ({@code azure} of {@code azure:sub-1/eastus}), when it has a known one. */
    public static Optional<String> providerOf(String id) {
        int colon = id.indexOf(':');
        if (colon <= 0 || colon == id.length() - 1 || id.chars().anyMatch(Character::isWhitespace)) {
            return Optional.empty();
        }
        String p = id.substring(0, colon);
        return PROVIDERS.contains(p) ? Optional.of(p) : Optional.empty();
    }

    /** Whether a deployment of {@code kind} can be under a quota of {@code provider}. */
    public static boolean covers(String provider, DeploymentKind kind) {
        return switch (kind) {
            case AZURE_OPENAI -> provider.equals("azure");
            case OPENAI, OPENAI_COMPATIBLE -> provider.equals("openai");
            case ANTHROPIC -> provider.equals("anthropic");
            case GEMINI -> provider.equals("gemini");
        };
    }
}
