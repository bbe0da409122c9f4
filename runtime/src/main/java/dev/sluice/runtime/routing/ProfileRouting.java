package dev.sluice.runtime.routing;

import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.OrgConfig;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.config.ProfileTarget;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.TenantConfig;
import dev.sluice.runtime.request.RequestPlan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Routes each attempt over its profile's deployments ({@link ProfileConfig#targets}).
 *
 * <ul>
 *   <li>The request's first choice is the profile's first deployment, or, for a profile routed by
 *       weight, one drawn by weight from the request's trace id (so every attempt of a request
 *       agrees on it).</li>
 *   <li>The first choice is taken when it has headroom; otherwise the first other deployment, in
 *       the profile's order, that has headroom and that the {@link FallbackPolicy} allows.</li>
 *   <li>When none has headroom the first one allowed and not yet tried is taken all the same: its
 *       own buckets decide whether the request waits there or is refused.</li>
 *   <li>Deployments already tried are never chosen again; when none is left, the answer is
 *       {@link RouteChoice.Nowhere} with the rule that forbade the first other one.</li>
 * </ul>
 */
public final class ProfileRouting implements RoutingPolicy {

    private static final Optional<String> FIRST_HAD_NO_ROOM = Optional.of("headroom");

    /** What routing reads of the configuration in force, swapped whole by {@link #reconfigure}. */
    private volatile State state;

    /**
     * @param single the choice of each one-deployment profile, made once: choosing allocates nothing
     * @param deployments the deployments in force
     * @param profiles the profiles in force
     * @param tenantRegions each tenant's residency region, if it is pinned to one
     */
    private record State(Map<String, RouteChoice> single, Map<String, DeploymentConfig> deployments,
            Map<String, ProfileConfig> profiles, Map<String, Optional<String>> tenantRegions) {}

    public ProfileRouting(SluiceConfig config) {
        reconfigure(config);
    }

    /**
     * Routes by {@code config} from now on: its deployments (those added are chosen once a profile
     * names them; those removed never again, not even for a request that was planned before), and
     * its profiles, which a request planned before the change is routed by when its profile is
     * still there.
     */
    public void reconfigure(SluiceConfig config) {
        Map<String, RouteChoice> single = new HashMap<>();
        config.profiles().values().forEach(p -> {
            DeploymentConfig d = config.deployments().get(p.deployment());
            single.put(p.id(), d == null
                    ? new RouteChoice.Nowhere("unknown_deployment", "profile " + p.id() + " names no known deployment")
                    : new RouteChoice.To(d, Optional.empty()));
        });
        Map<String, Optional<String>> tenantRegions = new HashMap<>();
        for (OrgConfig o : config.orgs().values()) {
            for (TenantConfig t : o.tenants().values()) {
                tenantRegions.put(t.id(), t.region());
            }
        }
        state = new State(single, config.deployments(), config.profiles(), tenantRegions);
    }

    @Override
    public RouteChoice choose(RequestPlan plan, List<String> tried, Headroom headroom) {
        State st = state;
        Map<String, DeploymentConfig> deployments = st.deployments();
        // The profile as it is now: a request planned before a change that removed its deployment moves by it.
        ProfileConfig p = st.profiles().getOrDefault(plan.profile().id(), plan.profile());
        List<ProfileTarget> targets = p.targets();
        if (targets.size() == 1) {
            RouteChoice c = st.single().get(p.id());
            if (!(c instanceof RouteChoice.To to && to.deployment().id().equals(p.deployment()))) {
                // A profile made or moved since start (the admin API): chosen from the plan's own profile.
                DeploymentConfig d = deployments.get(p.deployment());
                if (d == null) {
                    return new RouteChoice.Nowhere("unknown_profile", "profile " + p.id() + " is not configured");
                }
                c = new RouteChoice.To(d, Optional.empty());
            }
            return !triedAny(tried, deployments) ? c : new RouteChoice.Nowhere(RouteChoice.Nowhere.NO_OTHER,
                    "profile " + p.id() + " runs on deployment " + p.deployment() + " only");
        }
        int first = firstChoice(plan, p.routing(), targets);
        DeploymentConfig primary = deployments.get(targets.get(first).deployment());
        if (primary == null) {
            // A profile a change removed, with its deployment: the request planned on it cannot move.
            return new RouteChoice.Nowhere("unknown_profile", "profile " + p.id() + " is not configured");
        }
        Optional<String> region = st.tenantRegions().getOrDefault(plan.caller().tenant(), Optional.empty());
        RouteChoice.Nowhere forbidden = null;
        DeploymentConfig withoutRoom = null;
        for (int k = 0; k < targets.size(); k++) {
            int i = k == 0 ? first : k <= first ? k - 1 : k;
            DeploymentConfig d = deployments.get(targets.get(i).deployment());
            if (d == null || tried.contains(d.id())) {
                // Tried, or gone (a plan's own profile may still name a deployment a change removed).
                continue;
            }
            if (i != first && FallbackPolicy.judge(plan, region, p.fallback(), primary, d)
                    instanceof FallbackPolicy.Verdict.Forbidden f) {
                if (forbidden == null) {
                    forbidden = new RouteChoice.Nowhere(f.rule(), f.reason());
                }
                continue;
            }
            if (headroom.has(d.id())) {
                return new RouteChoice.To(d, i == first ? Optional.empty() : FIRST_HAD_NO_ROOM);
            }
            if (withoutRoom == null) {
                withoutRoom = d;
            }
        }
        if (withoutRoom != null) {
            return new RouteChoice.To(withoutRoom, withoutRoom == primary ? Optional.empty() : FIRST_HAD_NO_ROOM);
        }
        return forbidden != null ? forbidden : new RouteChoice.Nowhere(RouteChoice.Nowhere.NO_OTHER,
                "every deployment of profile " + p.id() + " was tried");
    }

    /** Whether a deployment still in force was tried: one a change removed since does not count. */
    private static boolean triedAny(List<String> tried, Map<String, DeploymentConfig> deployments) {
        for (String id : tried) {
            if (deployments.containsKey(id)) {
                return true;
            }
        }
        return false;
    }

    /** The index of the request's first choice among {@code targets}. */
    static int firstChoice(RequestPlan plan, List<ProfileTarget> targets) {
        return firstChoice(plan, plan.profile().routing(), targets);
    }

    private static int firstChoice(RequestPlan plan, ProfileConfig.Routing routing, List<ProfileTarget> targets) {
        if (routing == ProfileConfig.Routing.ORDER) {
            return 0;
        }
        int total = 0;
        for (ProfileTarget t : targets) {
            total += t.weight();
        }
        // A mixed hash of the trace id: deterministic, and spread evenly even over similar ids.
        long h = plan.traceId().hashCode() * 0x9E3779B97F4A7C15L;
        long draw = Math.floorMod(h ^ (h >>> 29), (long) total);
        for (int i = 0; i < targets.size(); i++) {
            draw -= targets.get(i).weight();
            if (draw < 0) {
                return i;
            }
        }
        return 0;
    }
}
