package dev.sluice.runtime.routing;

import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.request.RequestPlan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Every attempt goes to the one deployment its profile names. */
public final class ProfileRouting implements RoutingPolicy {

    /** One choice per profile, made once: choosing allocates nothing. */
    private final Map<String, RouteChoice> byProfile = new HashMap<>();

    public ProfileRouting(SluiceConfig config) {
        config.profiles().values().forEach(p -> {
            DeploymentConfig d = config.deployments().get(p.deployment());
            byProfile.put(p.id(), d == null
                    ? new RouteChoice.Nowhere("profile " + p.id() + " names no known deployment")
                    : new RouteChoice.To(d, Optional.empty()));
        });
    }

    @Override
    public RouteChoice choose(RequestPlan plan, List<String> tried) {
        RouteChoice c = byProfile.get(plan.profile().id());
        return c != null ? c : new RouteChoice.Nowhere("profile " + plan.profile().id() + " is not configured");
    }
}
