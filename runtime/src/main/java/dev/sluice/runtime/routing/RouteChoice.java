package dev.sluice.runtime.routing;

import dev.sluice.runtime.config.DeploymentConfig;
import java.util.Objects;
import java.util.Optional;

/**
 * Where an attempt goes: "route" in Sluice means this choice, the deployment a request's attempt
 * runs on. (A URL match is an {@code Endpoint}; the governor's buckets for a path are bound once
 * per path; the estimator learns per {@code estimateKey}.)
 */
public sealed interface RouteChoice {

    /**
     * Run the attempt on {@code deployment}.
     *
     * @param fallbackReason why this is not the profile's first choice; empty when it is
     */
    record To(DeploymentConfig deployment, Optional<String> fallbackReason) implements RouteChoice {
        public To {
            Objects.requireNonNull(deployment, "deployment");
            Objects.requireNonNull(fallbackReason, "fallbackReason");
        }
    }

    /** No deployment may take the attempt; {@code reason} says which rule forbade each. */
    record Nowhere(String reason) implements RouteChoice {
        public Nowhere {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
