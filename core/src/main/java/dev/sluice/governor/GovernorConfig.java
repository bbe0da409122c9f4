package dev.sluice.governor;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import java.time.Duration;
import java.util.EnumMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The governor's whole configuration, immutable. A reload builds a new one and hands it to
 * {@link QuotaGovernor#reconfigure}; reservations in flight keep the leases they hold.
 *
 * @param scopes settings per scope; a scope that is absent has no bucket and weight 1
 * @param classes queue policy per class; all classes must be present
 * @param leaseTtl how long a reservation may stay unsettled before it expires
 * @param leaseSweepInterval how often expired leases are looked for
 * @param providerScopes per deployment id, the shared provider scopes it belongs to
 *     ({@link ScopeLevel#PROVIDER_SCOPE}), outermost first: their buckets are on the path of every
 *     request that runs on it; a deployment that is absent belongs to none
 */
public record GovernorConfig(Map<Scope, ScopeSettings> scopes, Map<TrafficClass, ClassPolicy> classes,
        Duration leaseTtl, Duration leaseSweepInterval, Map<String, List<Scope>> providerScopes) {

    /**
     * Ten minutes: longer than any single LLM call we expect to proxy (SDK timeouts are 10 minutes),
     * short enough that a crashed request's concurrency comes back the same hour.
     */
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofMinutes(10);

    /** Expired leases are looked for once a second; they only hold capacity that is already late. */
    public static final Duration DEFAULT_LEASE_SWEEP = Duration.ofSeconds(1);

    public GovernorConfig {
        Objects.requireNonNull(scopes, "scopes");
        Objects.requireNonNull(classes, "classes");
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        Objects.requireNonNull(leaseSweepInterval, "leaseSweepInterval");
        scopes = Map.copyOf(scopes);
        Objects.requireNonNull(providerScopes, "providerScopes");
        Map<String, List<Scope>> shared = new HashMap<>();
        providerScopes.forEach((deployment, list) -> {
            for (Scope s : list) {
                ConfigException.require(s.level() == ScopeLevel.PROVIDER_SCOPE, "deployments." + deployment
                        + ".provider_scopes", "provider scopes", s.key());
            }
            shared.put(deployment, List.copyOf(list));
        });
        providerScopes = Map.copyOf(shared);
        EnumMap<TrafficClass, ClassPolicy> c = new EnumMap<>(TrafficClass.class);
        c.putAll(classes);
        for (TrafficClass t : TrafficClass.values()) {
            ConfigException.require(c.containsKey(t), "classes." + t.wireName(), "a policy for every class", "none");
        }
        classes = java.util.Collections.unmodifiableMap(c);
        double reserves = 0;
        for (ClassPolicy p : c.values()) {
            reserves += p.reserve();
        }
        ConfigException.require(reserves < 1, "classes.*.reserve", "reserves adding up to less than 1", reserves);
        ConfigException.require(leaseTtl.isPositive(), "lease_ttl", "> 0", leaseTtl);
        ConfigException.require(leaseSweepInterval.isPositive(), "lease_sweep_interval", "> 0", leaseSweepInterval);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The fraction of each shared bucket a request of class {@code c} must leave untouched: the
     * reserves of the classes served before it, which it may not take from them.
     */
    public double headroomFor(TrafficClass c) {
        double sum = 0;
        for (TrafficClass higher : TrafficClass.values()) {
            if (higher.outranks(c)) {
                sum += classes.get(higher).reserve();
            }
        }
        return sum;
    }

    /**
     * The classes whose reserve a request of class {@code c} may not take, as words:
     * {@code "critical and interactive"}; empty when none.
     */
    public String reserveHolders(TrafficClass c) {
        List<String> names = new ArrayList<>();
        for (TrafficClass higher : TrafficClass.values()) {
            if (higher.outranks(c) && classes.get(higher).reserve() > 0) {
                names.add(higher.wireName());
            }
        }
        if (names.size() <= 1) {
            return String.join("", names);
        }
        return String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.getLast();
    }

    /** The shared provider scopes {@code deployment} belongs to, outermost first; empty when none. */
    public List<Scope> providerScopesOf(String deployment) {
        List<Scope> s = providerScopes.get(deployment);
        return s != null ? s : List.of();
    }

    /** Settings for {@code scope}, or defaults (no limits, weight 1). */
    public ScopeSettings settings(Scope scope) {
        ScopeSettings s = scopes.get(scope);
        return s != null ? s : ScopeSettings.of(dev.sluice.limits.Limits.none());
    }

    /** Builds a {@link GovernorConfig} with default class policies and lease times. */
    public static final class Builder {
        private final Map<Scope, ScopeSettings> scopes = new HashMap<>();
        private final Map<String, List<Scope>> providerScopes = new HashMap<>();
        private final Map<TrafficClass, ClassPolicy> classes = new EnumMap<>(ClassPolicy.defaults());
        private Duration leaseTtl = DEFAULT_LEASE_TTL;
        private Duration leaseSweep = DEFAULT_LEASE_SWEEP;

        public Builder scope(Scope scope, ScopeSettings settings) {
            scopes.put(scope, settings);
            return this;
        }

        public Builder scope(Scope scope, dev.sluice.limits.Limits limits) {
            return scope(scope, ScopeSettings.of(limits));
        }

        /** {@code deployment} belongs to the shared provider scope {@code scope} (after those given before). */
        public Builder providerScope(String deployment, Scope scope) {
            providerScopes.computeIfAbsent(deployment, d -> new ArrayList<>()).add(scope);
            return this;
        }

        public Builder classPolicy(TrafficClass c, ClassPolicy policy) {
            classes.put(c, policy);
            return this;
        }

        public Builder leaseTtl(Duration ttl) {
            this.leaseTtl = ttl;
            return this;
        }

        public Builder leaseSweepInterval(Duration interval) {
            this.leaseSweep = interval;
            return this;
        }

        public GovernorConfig build() {
            return new GovernorConfig(scopes, classes, leaseTtl, leaseSweep, providerScopes);
        }
    }
}
