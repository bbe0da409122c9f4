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
 * @param task what the model does: generate (chat) or embed
 */
public record ProfileConfig(String id, String deployment, String model, Tokenizer tokenizer,
        boolean cacheReadCountsAgainstInputLimit, long defaultMaxOutputTokens, OutputReservation outputReservation,
        Limits limits, Task task) {

    /** A copy with other limits (a reloaded file). */
    public ProfileConfig withLimits(Limits next) {
        return new ProfileConfig(id, deployment, model, tokenizer, cacheReadCountsAgainstInputLimit,
                defaultMaxOutputTokens, outputReservation, next, task);
    }

    /**
     * What a profile's model does. An embedding profile serves the embedding routes (Gemini's
     * {@code embedContent} and {@code batchEmbedContents} accept only those) and no generation
     * route; model listings show its methods accordingly.
     */
    public enum Task {
        CHAT, EMBEDDING;

        /** The name in configuration files: {@code chat} or {@code embedding}. */
        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The task named {@code name} in a configuration file, if any. */
        public static java.util.Optional<Task> fromConfigName(String name) {
            for (Task t : values()) {
                if (t.configName().equals(name)) {
                    return java.util.Optional.of(t);
                }
            }
            return java.util.Optional.empty();
        }
    }

    /** A chat profile. */
    public ProfileConfig(String id, String deployment, String model, Tokenizer tokenizer,
            boolean cacheReadCountsAgainstInputLimit, long defaultMaxOutputTokens, OutputReservation outputReservation,
            Limits limits) {
        this(id, deployment, model, tokenizer, cacheReadCountsAgainstInputLimit, defaultMaxOutputTokens,
                outputReservation, limits, Task.CHAT);
    }

    public ProfileConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(outputReservation, "outputReservation");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(task, "task");
        dev.sluice.config.ConfigException.require(defaultMaxOutputTokens >= 1, "default_max_output_tokens", ">= 1",
                defaultMaxOutputTokens);
    }

    /** What the token estimator needs to know about this profile. */
    public EstimatorProfile estimatorProfile() {
        return new EstimatorProfile(id, tokenizer, cacheReadCountsAgainstInputLimit, defaultMaxOutputTokens,
                outputReservation);
    }
}
