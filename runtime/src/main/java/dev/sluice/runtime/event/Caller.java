package dev.sluice.runtime.event;

import java.util.Objects;

/**
 * Who sent a request, by configured ids: organisation, tenant, team and the API key's id (never
 * its secret).
 */
public record Caller(String org, String tenant, String team, String apiKeyId) {

    public Caller {
        Objects.requireNonNull(org, "org");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(team, "team");
        Objects.requireNonNull(apiKeyId, "apiKeyId");
    }
}
