package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import dev.sluice.runtime.yaml.YamlNode;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Reads the file's {@code warmups:} mapping, each checked with its field's path against the tenant's limits. */
final class WarmupSection {

    static final Set<String> WARMUP = Set.of("tenant", "start", "duration", "initial", "max_growth_per_minute",
            "thresholds", "min_requests");
    private static final Set<String> THRESHOLDS = Set.of("provider_429_rate");

    private WarmupSection() {}

    static List<WarmupConfig> read(YamlNode section, Map<String, OrgConfig> orgs) {
        List<WarmupConfig> out = new ArrayList<>();
        Map<String, String> byTenant = new java.util.HashMap<>();
        section.entries().forEach((id, n) -> {
            WarmupConfig w = warmup(id, n, orgs);
            String other = byTenant.putIfAbsent(w.tenant(), id);
            ConfigException.require(other == null, n.get("tenant").path(), "a tenant no other warm-up names",
                    "\"" + w.tenant() + "\", warmed up by " + other);
            out.add(w);
        });
        return out;
    }

    static WarmupConfig warmup(String id, YamlNode n, Map<String, OrgConfig> orgs) {
        n.requireObject();
        YamlNode cls = n.get("class");
        if (cls.present()) {
            // A class has no bucket to pace: its requests share their tenant's, team's and key's buckets
            // with every other class, so slowing them would slow the tenant's interactive traffic too.
            throw new ConfigException(cls.path(), "no class: a warm-up paces a tenant's buckets and a traffic class "
                    + "has none of its own (pacing the buckets its requests pass through would slow every other "
                    + "class there); give the job a tenant of its own and warm that tenant up", "a class");
        }
        n.allowOnly(WARMUP);
        YamlNode tenantNode = n.get("tenant");
        String tenant = tenantNode.text();
        TenantConfig t = orgs.values().stream().map(o -> o.tenants().get(tenant)).filter(java.util.Objects::nonNull)
                .findFirst().orElseThrow(() -> new ConfigException(tenantNode.path(), "a configured tenant",
                        "\"" + tenant + "\""));
        YamlNode startNode = n.get("start");
        String start = startNode.text("on_first_traffic");
        Optional<LocalTime> at;
        if (start.equals("on_first_traffic")) {
            at = Optional.empty();
        } else {
            try {
                at = Optional.of(LocalTime.parse(start));
            } catch (DateTimeParseException e) {
                throw new ConfigException(startNode.path(), "a time of day (02:00) or on_first_traffic", "\"" + start + "\"");
            }
        }
        Duration duration = n.get("duration").duration(Duration.ofMinutes(30));
        Map<Dimension, Long> growth = rates(n.get("max_growth_per_minute"), t);
        Map<Dimension, Long> initial = rates(n.get("initial"), t);
        YamlNode th = n.get("thresholds");
        th.allowOnly(THRESHOLDS);
        double limited = th.get("provider_429_rate").doubleValue(RolloutConfig.Thresholds.DEFAULTS.provider429Rate());
        long minRequests = n.get("min_requests").longValue(10);
        try {
            return new WarmupConfig(id, tenant, at, duration, initial, growth, limited, minRequests);
        } catch (ConfigException e) {
            throw e.under(n.path());
        }
    }

    /** Per-minute rates by dimension, each one the tenant has a limit in (the limit the warm-up grows to). */
    private static Map<Dimension, Long> rates(YamlNode n, TenantConfig t) {
        Map<Dimension, Long> out = new EnumMap<>(Dimension.class);
        n.entries().forEach((name, v) -> {
            Dimension d = Dimension.byLimiterName(name).filter(RolloutConfig.GROWTH_DIMENSIONS::contains)
                    .orElseThrow(() -> new ConfigException(v.path(), "one of rpm, tpm, input_tpm, output_tpm",
                            "\"" + name + "\""));
            ConfigException.require(t.limits().get(d).isPresent(), v.path(), "a dimension tenant " + t.id()
                    + " has a limit in (the rate it warms up to)", name);
            out.put(d, v.required().longValue(0));
        });
        return out;
    }
}
