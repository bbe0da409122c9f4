package dev.sluice.runtime.routing;

import dev.sluice.runtime.request.RequestPlan;
import java.util.List;

/**
 * Chooses the deployment for each attempt of a request. Pure: the same plan, history and
 * headroom give the same choice, in the gateway and in the simulator alike. Fallback and
 * migration rollouts are policies behind this seam.
 */
@FunctionalInterface
public interface RoutingPolicy {

    /**
     * The deployment for the next attempt of {@code plan}: one not in {@code tried}, or
     * {@link RouteChoice.Nowhere} when no other may take it.
     *
     * @param tried the deployments of the attempts made so far, in order, then those under a shared
     *     provider scope that refused the request (a move to one is no fallback); empty for the first
     * @param headroom which deployments could take it now without waiting
     */
    RouteChoice choose(RequestPlan plan, List<String> tried, Headroom headroom);
}
