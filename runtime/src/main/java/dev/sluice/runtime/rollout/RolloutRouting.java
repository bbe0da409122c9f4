package dev.sluice.runtime.rollout;

import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.routing.Headroom;
import dev.sluice.runtime.routing.RouteChoice;
import dev.sluice.runtime.routing.RoutingPolicy;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Rollouts applied through the routing seam: a request's first attempt runs on its profile's
 * rollout target when {@link Rollouts} puts it there; an attempt after one on the target returns
 * to the source (the profile's first deployment, which the request's policy always allows);
 * everything else is routed by the policy underneath.
 */
public final class RolloutRouting implements RoutingPolicy {

    private static final Optional<String> BACK_FROM_TARGET = Optional.of("rollout_target");

    private final RoutingPolicy underneath;
    private final Rollouts rollouts;

    public RolloutRouting(RoutingPolicy underneath, Rollouts rollouts) {
        this.underneath = Objects.requireNonNull(underneath, "underneath");
        this.rollouts = Objects.requireNonNull(rollouts, "rollouts");
    }

    @Override
    public RouteChoice choose(RequestPlan plan, List<String> tried, Headroom headroom) {
        if (tried.isEmpty()) {
            Optional<DeploymentConfig> target = rollouts.targetFor(plan, headroom);
            if (target.isPresent()) {
                return new RouteChoice.To(target.get(), Optional.empty());
            }
        } else {
            Optional<DeploymentConfig> source = rollouts.sourceAfterTarget(plan.profile().id(), tried);
            if (source.isPresent()) {
                return new RouteChoice.To(source.get(), BACK_FROM_TARGET);
            }
        }
        return underneath.choose(plan, tried, headroom);
    }
}
