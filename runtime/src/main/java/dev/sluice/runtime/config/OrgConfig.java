package dev.sluice.runtime.config;

import dev.sluice.limits.Limits;
import java.util.Map;
import java.util.Objects;

/**
 * An organisation: the outermost level of the key tree.
 *
 * @param id its name; bucket scope {@code org:id}
 * @param limits the organisation's own limits
 * @param tenants its tenants by id, in file order
 */
public record OrgConfig(String id, Limits limits, Map<String, TenantConfig> tenants) {

    public OrgConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(limits, "limits");
        tenants = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(tenants));
    }
}
