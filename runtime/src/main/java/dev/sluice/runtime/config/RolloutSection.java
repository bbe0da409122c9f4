package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import dev.sluice.runtime.yaml.YamlNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the file's {@code rollouts:} mapping. What can be checked without a request is checked
 * here with the field's path; whether the fallback policy lets the profile's traffic run on the
 * target is asked of the routing package once the whole file is read ({@code RolloutCompatibility}).
 */
final class RolloutSection {

    static final Set<String> ROLLOUT = Set.of("profile", "from", "to", "steps", "interval", "tenants_first",
            "sticky", "max_growth_per_minute", "thresholds", "min_requests", "rollback_after", "start", "shadow");
    private static final Set<String> THRESHOLDS = Set.of("provider_429_rate", "fallback_rate", "error_rate",
            "estimate_error", "p95_latency", "p95_ttft", "p95_queue_wait");

    private RolloutSection() {}

    static List<RolloutConfig> read(YamlNode section, Map<String, DeploymentConfig> deployments,
            Map<String, ProfileConfig> profiles, Set<String> tenants) {
        List<RolloutConfig> out = new ArrayList<>();
        Map<String, String> byProfile = new java.util.HashMap<>();
        section.entries().forEach((id, n) -> {
            RolloutConfig r = rollout(id, n, deployments, profiles, tenants);
            String other = byProfile.putIfAbsent(r.profile(), id);
            ConfigException.require(other == null, n.get("profile").path(), "a profile no other rollout moves",
                    "\"" + r.profile() + "\", moved by rollout " + other);
            out.add(r);
        });
        return out;
    }

    static RolloutConfig rollout(String id, YamlNode n, Map<String, DeploymentConfig> deployments,
            Map<String, ProfileConfig> profiles, Set<String> tenants) {
        n.requireObject();
        n.allowOnly(ROLLOUT);
        YamlNode profileNode = n.get("profile");
        String profileId = profileNode.text();
        ProfileConfig profile = profiles.get(profileId);
        ConfigException.require(profile != null, profileNode.path(), "one of the profiles " + profiles.keySet(),
                "\"" + profileId + "\"");
        YamlNode fromNode = n.get("from");
        String from = fromNode.text(profile.deployment());
        ConfigException.require(from.equals(profile.deployment()), fromNode.path(),
                "profile " + profileId + "'s first deployment, " + profile.deployment(), "\"" + from + "\"");
        YamlNode toNode = n.get("to");
        String to = toNode.text();
        ConfigException.require(deployments.containsKey(to), toNode.path(),
                "one of the deployments " + deployments.keySet(), "\"" + to + "\"");
        ConfigException.require(!to.equals(from), toNode.path(), "a deployment other than " + from, "\"" + to + "\"");
        YamlNode stepsNode = n.get("steps").required();
        List<Double> steps = new ArrayList<>();
        for (YamlNode s : stepsNode.items()) {
            steps.add(s.doubleValue(0));
        }
        Duration interval = n.get("interval").duration(Duration.ofMinutes(5));
        List<String> first = new ArrayList<>();
        for (YamlNode t : n.get("tenants_first").items()) {
            String tenant = t.text();
            ConfigException.require(tenants.contains(tenant), t.path(), "a configured tenant", "\"" + tenant + "\"");
            first.add(tenant);
        }
        YamlNode stickyNode = n.get("sticky");
        RolloutConfig.Sticky sticky = switch (stickyNode.text("tenant")) {
            case "tenant" -> RolloutConfig.Sticky.TENANT;
            case "key" -> RolloutConfig.Sticky.KEY;
            default -> throw new ConfigException(stickyNode.path(), "tenant or key", "\"" + stickyNode.text() + "\"");
        };
        Map<Dimension, Long> growth = new EnumMap<>(Dimension.class);
        n.get("max_growth_per_minute").entries().forEach((name, v) -> {
            Dimension d = Dimension.byLimiterName(name).orElseThrow(() -> new ConfigException(v.path(),
                    "one of rpm, tpm, input_tpm, output_tpm", "\"" + name + "\""));
            growth.put(d, v.required().longValue(0));
        });
        RolloutConfig.Thresholds t = thresholds(n.get("thresholds"));
        long minRequests = n.get("min_requests").longValue(20);
        int rollbackAfter = n.get("rollback_after").intValue(2);
        YamlNode startNode = n.get("start");
        boolean atOnce = switch (startNode.text("on_command")) {
            case "immediately" -> true;
            case "on_command" -> false;
            default -> throw new ConfigException(startNode.path(), "immediately or on_command",
                    "\"" + startNode.text() + "\"");
        };
        YamlNode shadow = n.get("shadow");
        shadow.allowOnly(java.util.Set.of("sample"));
        double sample = shadow.get("sample").doubleValue(0);
        try {
            return new RolloutConfig(id, profileId, from, to, steps, interval, first, sticky, growth, t,
                    minRequests, rollbackAfter, atOnce, sample);
        } catch (ConfigException e) {
            throw e.under(n.path());
        }
    }

    private static RolloutConfig.Thresholds thresholds(YamlNode n) {
        n.allowOnly(THRESHOLDS);
        RolloutConfig.Thresholds d = RolloutConfig.Thresholds.DEFAULTS;
        double limited = n.get("provider_429_rate").doubleValue(d.provider429Rate());
        double fallback = n.get("fallback_rate").doubleValue(d.fallbackRate());
        double errors = n.get("error_rate").doubleValue(d.errorRate());
        double estimate = n.get("estimate_error").doubleValue(d.estimateError());
        Optional<Duration> latency = positive(n.get("p95_latency"));
        Optional<Duration> ttft = positive(n.get("p95_ttft"));
        Optional<Duration> wait = positive(n.get("p95_queue_wait"));
        try {
            return new RolloutConfig.Thresholds(limited, fallback, errors, estimate, latency, ttft, wait);
        } catch (ConfigException e) {
            throw e.under(n.path());
        }
    }

    private static Optional<Duration> positive(YamlNode n) {
        Optional<Duration> d = n.optDuration();
        d.ifPresent(v -> ConfigException.require(v.isPositive(), n.path(), "> 0", v));
        return d;
    }
}
