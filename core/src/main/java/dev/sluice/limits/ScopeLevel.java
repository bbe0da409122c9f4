package dev.sluice.limits;

/**
 * The levels of the bucket hierarchy, outermost first. A request passes one bucket per level and
 * must fit all of them. The declaration order is also the order in which buckets are locked, which
 * is what keeps multi-bucket reservations free of deadlock.
 */
public enum ScopeLevel {
    ORGANISATION("org", false),
    TENANT("tenant", false),
    TEAM("team", false),
    API_KEY("key", false),
    MODEL_PROFILE("profile", true),
    /**
     * A provider quota shared above one deployment (an Azure subscription and region, an OpenAI
     * organisation or project, an Anthropic workspace, a Gemini project and tier): every request
     * on any of its deployments passes its bucket. Above the deployment, so a request short on
     * both is named short on the scope, which another deployment of the scope cannot relieve.
     */
    PROVIDER_SCOPE("provider_scope", true),
    PROVIDER_DEPLOYMENT("deployment", true);

    private final String prefix;
    private final boolean sharedAcrossTenants;

    ScopeLevel(String prefix, boolean sharedAcrossTenants) {
        this.prefix = prefix;
        this.sharedAcrossTenants = sharedAcrossTenants;
    }

    /** The prefix of scope names at this level: {@code tenant:acme}. */
    public String prefix() {
        return prefix;
    }

    /**
     * Whether one bucket at this level is used by requests of many tenants. An organisation is
     * too, but it is above every tenant, so a request short on it is short for everyone alike.
     */
    public boolean sharedAcrossTenants() {
        return sharedAcrossTenants || this == ORGANISATION;
    }

    /**
     * Whether a bucket at this level stands for a provider's own quota (a deployment's, or one
     * shared by several deployments): the provider enforces it over a short window, so its rates
     * get one by default.
     */
    public boolean enforcedByProvider() {
        return this == PROVIDER_SCOPE || this == PROVIDER_DEPLOYMENT;
    }

    /** Whether a bucket at this level belongs to one tenant (tenant, team, key). */
    public boolean ownedByTenant() {
        return this == TENANT || this == TEAM || this == API_KEY;
    }
}
