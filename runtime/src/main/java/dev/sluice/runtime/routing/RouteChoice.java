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
     * @param fallbackReason why this is not the request's first choice; empty when it is
     */
    record To(DeploymentConfig deployment, Optional<String> fallbackReason) implements RouteChoice {
        public To {
            Objects.requireNonNull(deployment, "deployment");
            Objects.requireNonNull(fallbackReason, "fallbackReason");
        }
    }

    /**
     * No deployment (other than those tried) may take the attempt.
     *
     * @param rule the rule that forbade the first of the others ({@code no_other_deployment} when
     *     the profile lists no other), as the normalised 429 names it
     * @param reason one sentence saying why
     */
    record Nowhere(String rule, String reason) implements RouteChoice {

        /** The rule named when a profile has no deployment left to try. */
        public static final String NO_OTHER = "no_other_deployment";

        public Nowhere {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
