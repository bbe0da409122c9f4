package dev.sluice.governor;

import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import java.util.List;
import java.util.Objects;

/**
 * Where a request sits in the hierarchy: organisation > tenant > team > api key > model profile >
 * provider deployment. Ids are the configured names (for keys: the key id, never the secret).
 */
public record RequestPath(String organisation, String tenant, String team, String apiKey, String modelProfile,
        String deployment) {

    public RequestPath {
        Objects.requireNonNull(organisation, "organisation");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(team, "team");
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(modelProfile, "modelProfile");
        Objects.requireNonNull(deployment, "deployment");
    }

    /** The six scopes, outermost first. */
    public List<Scope> scopes() {
        return List.of(Scope.of(ScopeLevel.ORGANISATION, organisation), Scope.of(ScopeLevel.TENANT, tenant),
                Scope.of(ScopeLevel.TEAM, team), Scope.of(ScopeLevel.API_KEY, apiKey),
                Scope.of(ScopeLevel.MODEL_PROFILE, modelProfile), Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, deployment));
    }
}
