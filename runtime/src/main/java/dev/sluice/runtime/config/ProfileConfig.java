package dev.sluice.runtime.config;

import dev.sluice.estimate.EstimatorProfile;
import dev.sluice.estimate.OutputReservation;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.limits.Limits;
import java.util.Objects;

/**
 * A model profile: the name clients put in {@code model}, routed to one deployment and one
 * provider model.
 *
 * @param id the profile name clients use
 * @param deployment the deployment it routes to
 * @param model the provider's model name sent upstream
 * @param tokenizer how prompts are counted before sending
 * @param cacheReadCountsAgainstInputLimit whether the provider counts cache reads against its input limit
 * @param defaultMaxOutputTokens output ceiling for requests that give no max_tokens
 * @param outputReservation how much output a request reserves before it is sent
 * @param limits limits of the profile's own bucket
 */
public record ProfileConfig(String id, String deployment, String model, Tokenizer tokenizer,
        boolean cacheReadCountsAgainstInputLimit, long defaultMaxOutputTokens, OutputReservation outputReservation,
        Limits limits) {

    public ProfileConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(outputReservation, "outputReservation");
        Objects.requireNonNull(limits, "limits");
        dev.sluice.config.ConfigException.require(defaultMaxOutputTokens >= 1, "default_max_output_tokens", ">= 1",
                defaultMaxOutputTokens);
    }

    /** What the token estimator needs to know about this profile. */
    public EstimatorProfile estimatorProfile() {
        return new EstimatorProfile(id, tokenizer, cacheReadCountsAgainstInputLimit, defaultMaxOutputTokens,
                outputReservation);
    }
}
