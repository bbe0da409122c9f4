package dev.sluice.runtime.config;

import dev.sluice.limits.Limits;
import java.util.Map;
import java.util.Objects;

/**
 * A tenant: the unit of fairness. Tenant ids are unique across organisations.
 *
 * @param id its name; bucket scope {@code tenant:id}
 * @param weight its share of contended capacity relative to other tenants
 * @param guaranteed minimum rates it is served before others borrow
 * @param limits its own limits
 * @param teams its teams by (tenant-local) name, in file order
 * @param region the region its requests must run in, if it is pinned to one: no fallback leaves it
 */
public record TenantConfig(String id, double weight, Limits guaranteed, Limits limits, Map<String, TeamConfig> teams,
        java.util.Optional<String> region) {

    /** A tenant pinned to no region. */
    public TenantConfig(String id, double weight, Limits guaranteed, Limits limits, Map<String, TeamConfig> teams) {
        this(id, weight, guaranteed, limits, teams, java.util.Optional.empty());
    }

    public TenantConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(guaranteed, "guaranteed");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(region, "region");
        teams = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(teams));
    }
}
