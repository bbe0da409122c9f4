package dev.sluice.runtime.config;

import dev.sluice.limits.Limits;
import java.util.Map;
import java.util.Objects;

/**
 * A team inside a tenant.
 *
 * @param name its name as written under the tenant
 * @param scopeId the id of its bucket, {@code tenant/name}, so equally named teams of two tenants never share one
 * @param limits its own limits
 * @param keys its API keys by id, in file order
 */
public record TeamConfig(String name, String scopeId, Limits limits, Map<String, KeyConfig> keys) {

    public TeamConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(scopeId, "scopeId");
        Objects.requireNonNull(limits, "limits");
        keys = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(keys));
    }
}
