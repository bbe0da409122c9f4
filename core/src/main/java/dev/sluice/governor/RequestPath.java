package dev.sluice.governor;

import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import java.util.List;
import java.util.Objects;

/**
 * Where a request sits in the hierarchy: organisation > tenant > team > api key > model profile >
 * provider deployment. Ids are the configured names (for keys: the key id, never the secret).
 *
 * <p>A value with the accessors of a record; its hash is computed once, because the governor
 * looks every admission's route up by it and reading six strings' hashes would mean fetching six
 * strings.
 */
public final class RequestPath {

    private final String organisation;
    private final String tenant;
    private final String team;
    private final String apiKey;
    private final String modelProfile;
    private final String deployment;
    private final int hash;

    public RequestPath(String organisation, String tenant, String team, String apiKey, String modelProfile,
            String deployment) {
        this.organisation = Objects.requireNonNull(organisation, "organisation");
        this.tenant = Objects.requireNonNull(tenant, "tenant");
        this.team = Objects.requireNonNull(team, "team");
        this.apiKey = Objects.requireNonNull(apiKey, "apiKey");
        this.modelProfile = Objects.requireNonNull(modelProfile, "modelProfile");
        this.deployment = Objects.requireNonNull(deployment, "deployment");
        this.hash = Objects.hash(organisation, tenant, team, apiKey, modelProfile, deployment);
    }

    public String organisation() {
        return organisation;
    }

    public String tenant() {
        return tenant;
    }

    public String team() {
        return team;
    }

    public String apiKey() {
        return apiKey;
    }

    public String modelProfile() {
        return modelProfile;
    }

    public String deployment() {
        return deployment;
    }

    /** The six scopes, outermost first. */
    public List<Scope> scopes() {
        return List.of(Scope.of(ScopeLevel.ORGANISATION, organisation), Scope.of(ScopeLevel.TENANT, tenant),
                Scope.of(ScopeLevel.TEAM, team), Scope.of(ScopeLevel.API_KEY, apiKey),
                Scope.of(ScopeLevel.MODEL_PROFILE, modelProfile), Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, deployment));
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof RequestPath p && p.hash == hash && p.apiKey.equals(apiKey)
                && p.modelProfile.equals(modelProfile) && p.deployment.equals(deployment) && p.team.equals(team)
                && p.tenant.equals(tenant) && p.organisation.equals(organisation);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "RequestPath[organisation=" + organisation + ", tenant=" + tenant + ", team=" + team + ", apiKey="
                + apiKey + ", modelProfile=" + modelProfile + ", deployment=" + deployment + "]";
    }
}
