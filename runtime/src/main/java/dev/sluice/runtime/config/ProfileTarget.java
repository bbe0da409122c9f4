package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.util.Objects;

/**
 * One deployment a model profile may run on.
 *
 * @param deployment the deployment's id
 * @param model the provider's model name sent to that deployment (the profile's own unless the
 *     target names another: a fallback on another provider serves its own model)
 * @param weight its share of the profile's requests when the profile routes by weight; ignored
 *     when it routes in order
 */
public record ProfileTarget(String deployment, String model, int weight) {

    public ProfileTarget {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(model, "model");
        ConfigException.require(weight >= 1, "weight", ">= 1", weight);
    }
}
