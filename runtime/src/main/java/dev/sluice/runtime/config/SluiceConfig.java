package dev.sluice.runtime.config;

import dev.sluice.governor.ClassPolicy;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.ScopeSettings;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One validated configuration file: server, store, class policies, deployments, model profiles
 * and the organisation > tenant > team > key tree. Built by {@link ConfigLoader}; immutable.
 *
 * @param sourceName where it was read from, for messages
 * @param server listener settings
 * @param store quota-state settings
 * @param ledger where every request is recorded
 * @param dailyResetZone daily caps reset at midnight here
 * @param leaseTtl how long a reservation may stay unsettled
 * @param leaseSweepInterval how often expired leases are looked for
 * @param classes queue policy for every traffic class
 * @param deployments provider deployments by id, in file order
 * @param profiles model profiles by id, in file order
 * @param orgs the key tree by organisation id, in file order
 * @param admin the admin listener, when the file has an {@code admin:} section
 * @param metrics which optional labels the Prometheus metrics carry
 * @param tracing where OpenTelemetry spans go (nowhere by default)
 * @param rollouts the migrations of profiles from one deployment to another ({@code rollouts:}); empty for none
 * @param prices what tokens cost, per deployment or model, for the money caps ({@code daily_cost}, {@code monthly_cost})
 * @param providerScopes provider quotas shared above one deployment, by id, in file order
 * @param alerts the gateway's own alert rules' thresholds and the webhook they are sent to
 * @param warmups scheduled jobs' warm-ups, one per tenant ({@code warmups:}); empty for none
 */
public record SluiceConfig(String sourceName, ServerSettings server, StoreSettings store, LedgerSettings ledger,
        ZoneId dailyResetZone, Duration leaseTtl, Duration leaseSweepInterval, Map<TrafficClass, ClassPolicy> classes,
        Map<String, DeploymentConfig> deployments, Map<String, ProfileConfig> profiles, Map<String, OrgConfig> orgs,
        Optional<AdminSettings> admin, MetricsSettings metrics, TracingSettings tracing, List<RolloutConfig> rollouts,
        Prices prices, Map<String, ProviderScopeConfig> providerScopes, AlertSettings alerts, List<WarmupConfig> warmups) {

    /** A configuration without rollouts, prices or provider scopes, with the default alert thresholds and no webhook. */
    public SluiceConfig(String sourceName, ServerSettings server, StoreSettings store, LedgerSettings ledger,
            ZoneId dailyResetZone, Duration leaseTtl, Duration leaseSweepInterval, Map<TrafficClass, ClassPolicy> classes,
            Map<String, DeploymentConfig> deployments, Map<String, ProfileConfig> profiles, Map<String, OrgConfig> orgs,
            Optional<AdminSettings> admin, MetricsSettings metrics, TracingSettings tracing) {
        this(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval, classes, deployments,
                profiles, orgs, admin, metrics, tracing, List.of(), Prices.NONE, Map.of(), AlertSettings.defaults(), List.of());
    }

    public SluiceConfig {
        Objects.requireNonNull(sourceName, "sourceName");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(ledger, "ledger");
        Objects.requireNonNull(dailyResetZone, "dailyResetZone");
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        Objects.requireNonNull(leaseSweepInterval, "leaseSweepInterval");
        Objects.requireNonNull(prices, "prices");
        classes = Collections.unmodifiableMap(new java.util.EnumMap<>(classes));
        deployments = Collections.unmodifiableMap(new LinkedHashMap<>(deployments));
        profiles = Collections.unmodifiableMap(new LinkedHashMap<>(profiles));
        orgs = Collections.unmodifiableMap(new LinkedHashMap<>(orgs));
        Objects.requireNonNull(admin, "admin");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(tracing, "tracing");
        rollouts = List.copyOf(rollouts);
        providerScopes = Collections.unmodifiableMap(new LinkedHashMap<>(providerScopes));
        Objects.requireNonNull(alerts, "alerts");
        warmups = List.copyOf(warmups);
    }

    /** The governor's configuration: limits, weights and guarantees per scope, class policies, lease times. */
    public GovernorConfig governorConfig() {
        GovernorConfig.Builder b = GovernorConfig.builder().leaseTtl(leaseTtl).leaseSweepInterval(leaseSweepInterval);
        classes.forEach(b::classPolicy);
        deployments.values().forEach(d -> addIfLimited(b, Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, d.id()), d.limits()));
        providerScopes.values().forEach(s -> addIfLimited(b, s.scope(), s.limits()));
        for (DeploymentConfig d : deployments.values()) {
            for (String s : d.providerScopes()) {
                b.providerScope(d.id(), Scope.of(ScopeLevel.PROVIDER_SCOPE, s));
            }
        }
        profiles.values().forEach(p -> addIfLimited(b, Scope.of(ScopeLevel.MODEL_PROFILE, p.id()), p.limits()));
        for (OrgConfig o : orgs.values()) {
            addIfLimited(b, Scope.of(ScopeLevel.ORGANISATION, o.id()), o.limits());
            for (TenantConfig t : o.tenants().values()) {
                // Tenants always get settings: their weight matters even without limits of their own.
                b.scope(Scope.of(ScopeLevel.TENANT, t.id()), new ScopeSettings(t.limits(), t.weight(), t.guaranteed()));
                for (TeamConfig team : t.teams().values()) {
                    addIfLimited(b, Scope.of(ScopeLevel.TEAM, team.scopeId()), team.limits());
                    for (KeyConfig k : team.keys().values()) {
                        addIfLimited(b, Scope.of(ScopeLevel.API_KEY, k.id()), k.limits());
                    }
                }
            }
        }
        return b.build();
    }

    private static void addIfLimited(GovernorConfig.Builder b, Scope scope, Limits limits) {
        if (!limits.isEmpty()) {
            b.scope(scope, ScopeSettings.of(limits));
        }
    }

    /** Every API key of the tree, in file order. */
    public List<KeyConfig> keys() {
        List<KeyConfig> out = new ArrayList<>();
        for (OrgConfig o : orgs.values()) {
            for (TenantConfig t : o.tenants().values()) {
                for (TeamConfig team : t.teams().values()) {
                    out.addAll(team.keys().values());
                }
            }
        }
        return out;
    }

    /** Every tenant of the tree, in file order. */
    public List<TenantConfig> tenants() {
        List<TenantConfig> out = new ArrayList<>();
        orgs.values().forEach(o -> out.addAll(o.tenants().values()));
        return out;
    }

    /** The shared provider scopes {@code d} belongs to, outermost first. */
    public List<ProviderScopeConfig> providerScopesOf(DeploymentConfig d) {
        List<ProviderScopeConfig> out = new ArrayList<>(d.providerScopes().size());
        d.providerScopes().forEach(id -> out.add(providerScopes.get(id)));
        return out;
    }

    public Optional<DeploymentConfig> deployment(String id) {
        return Optional.ofNullable(deployments.get(id));
    }

    public Optional<ProfileConfig> profile(String id) {
        return Optional.ofNullable(profiles.get(id));
    }

    /**
     * What the environment lacks for this configuration to serve: one line per credential or key
     * secret whose variable is not set (names of variables only, never values). Empty when ready.
     */
    public List<String> missingEnvironment() {
        List<String> out = new ArrayList<>();
        for (DeploymentConfig d : deployments.values()) {
            if (d.credentialMissing()) {
                out.add("deployments." + d.id() + ".api_key_env: environment variable " + d.apiKeyEnv().orElseThrow()
                        + " is not set");
            }
        }
        for (KeyConfig k : keys()) {
            if (k.secretSha256().isEmpty()) {
                out.add("key " + k.id() + ": " + k.secretSource() + " is not set");
            }
        }
        if (ledger.kind() == LedgerSettings.Kind.POSTGRES && ledger.passwordEnv().isPresent()
                && ledger.password().isEmpty()) {
            out.add("ledger.password_env: environment variable " + ledger.passwordEnv().orElseThrow() + " is not set");
        }
        admin.ifPresent(a -> a.tokens().values().forEach(t -> {
            if (t.secretSha256().isEmpty()) {
                out.add("admin token " + t.id() + ": " + t.secretSource() + " is not set");
            }
        }));
        return out;
    }

    /** A copy with other server settings (a test or the demo picking its port). */
    public SluiceConfig withServer(ServerSettings next) {
        return new SluiceConfig(sourceName, next, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, metrics, tracing, rollouts, prices, providerScopes, alerts, warmups);
    }

    /** A copy with other store settings (the simulator running a scenario on several replicas). */
    public SluiceConfig withStore(StoreSettings next) {
        return new SluiceConfig(sourceName, server, next, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, metrics, tracing, rollouts, prices, providerScopes, alerts, warmups);
    }

    /** A copy with other ledger settings (a test or the demo choosing where to record). */
    public SluiceConfig withLedger(LedgerSettings next) {
        return new SluiceConfig(sourceName, server, store, next, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, metrics, tracing, rollouts, prices, providerScopes, alerts, warmups);
    }

    /** A copy with other admin listener settings (a test or the demo picking its port). */
    public SluiceConfig withAdmin(AdminSettings next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, Optional.of(next), metrics, tracing, rollouts, prices, providerScopes, alerts, warmups);
    }

    /** A copy sending spans as {@code next} says. */
    public SluiceConfig withTracing(TracingSettings next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, metrics, next, rollouts, prices, providerScopes, alerts, warmups);
    }

    /** A copy with other metrics labels. */
    public SluiceConfig withMetrics(MetricsSettings next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, next, tracing, rollouts, prices, providerScopes, alerts, warmups);
    }

    /** A copy with another key tree (a change through the admin API, a reloaded file). */
    public SluiceConfig withOrgs(Map<String, OrgConfig> next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, next, admin, metrics, tracing, rollouts, prices, providerScopes, alerts, warmups);
    }

    /** A copy with other model profiles (a reloaded file's limits). */
    public SluiceConfig withProfiles(Map<String, ProfileConfig> next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, next, orgs, admin, metrics, tracing, rollouts, prices, providerScopes, alerts, warmups);
    }

    /** A copy with another price table (a change through the admin API). */
    public SluiceConfig withPrices(Prices next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, metrics, tracing, rollouts, next, providerScopes, alerts, warmups);
    }

    /** A copy with other provider scopes (a reloaded file's limits). */
    public SluiceConfig withProviderScopes(Map<String, ProviderScopeConfig> next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, metrics, tracing, rollouts, prices, next, alerts, warmups);
    }

    /** This configuration with {@code next} as its rollouts (the admin API adds and removes them). */
    public SluiceConfig withRollouts(List<RolloutConfig> next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, metrics, tracing, next, prices, providerScopes, alerts, warmups);
    }

    /** This configuration with {@code next} as its warm-ups. */
    public SluiceConfig withWarmups(List<WarmupConfig> next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, deployments, profiles, orgs, admin, metrics, tracing, rollouts, prices, providerScopes, alerts, next);
    }

    /** A copy with other deployments (the demo pointing them at its mock provider). */
    public SluiceConfig withDeployments(Map<String, DeploymentConfig> next) {
        return new SluiceConfig(sourceName, server, store, ledger, dailyResetZone, leaseTtl, leaseSweepInterval,
                classes, next, profiles, orgs, admin, metrics, tracing, rollouts, prices, providerScopes, alerts, warmups);
    }
}
