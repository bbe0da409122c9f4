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
 */
public record TenantConfig(String id, double weight, Limits guaranteed, Limits limits, Map<String, TeamConfig> teams) {

    public TenantConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(guaranteed, "guaranteed");
        Objects.requireNonNull(limits, "limits");
        teams = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(teams));
    }
}
