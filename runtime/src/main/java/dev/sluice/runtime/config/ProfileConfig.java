package dev.sluice.runtime.config;

import dev.sluice.estimate.EstimatorProfile;
import dev.sluice.estimate.OutputReservation;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.limits.Limits;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A model profile: the name clients put in {@code model}, routed to one or several deployments
 * ({@link #targets}), each with its provider model.
 *
 * @param id the profile name clients use
 * @param deployment its first deployment (the first of {@code targets})
 * @param model the provider's model name sent to its first deployment
 * @param tokenizer how prompts are counted before sending
 * @param cacheReadCountsAgainstInputLimit whether the provider counts cache reads against its input limit
 * @param defaultMaxOutputTokens output ceiling for requests that give no max_tokens
 * @param outputReservation how much output a request reserves before it is sent
 * @param limits limits of the profile's own bucket
 * @param task what the model does: generate (chat) or embed
 * @param targets the deployments it may run on, first choice first; one for a profile that names
 *     a single {@code deployment}
 * @param routing how the routing policy picks among {@code targets} that have headroom
 * @param fallback which requests may run on a target other than their first choice
 */
public record ProfileConfig(String id, String deployment, String model, Tokenizer tokenizer,
        boolean cacheReadCountsAgainstInputLimit, long defaultMaxOutputTokens, OutputReservation outputReservation,
        Limits limits, Task task, List<ProfileTarget> targets, Routing routing, FallbackSettings fallback) {

    /** How a profile with several deployments spreads its requests over those with headroom. */
    public enum Routing {
        /** The first in the listed order that has headroom. */
        ORDER,
        /** One drawn by weight from those with headroom, by the request's trace id (so the same request draws the same). */
        WEIGHT;

        /** The name in configuration files. */
        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A copy with other limits (a reloaded file); its deployments, routing and fallback policy kept. */
    public ProfileConfig withLimits(Limits next) {
        return new ProfileConfig(id, deployment, model, tokenizer, cacheReadCountsAgainstInputLimit,
                defaultMaxOutputTokens, outputReservation, next, task, targets, routing, fallback);
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

    /** A profile on one deployment. */
    public ProfileConfig(String id, String deployment, String model, Tokenizer tokenizer,
            boolean cacheReadCountsAgainstInputLimit, long defaultMaxOutputTokens, OutputReservation outputReservation,
            Limits limits, Task task) {
        this(id, deployment, model, tokenizer, cacheReadCountsAgainstInputLimit, defaultMaxOutputTokens,
                outputReservation, limits, task, List.of(new ProfileTarget(deployment, model, 1)), Routing.ORDER,
                FallbackSettings.DEFAULTS);
    }

    public ProfileConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(outputReservation, "outputReservation");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(task, "task");
        targets = List.copyOf(targets);
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(fallback, "fallback");
        dev.sluice.config.ConfigException.require(!targets.isEmpty() && targets.get(0).deployment().equals(deployment)
                && targets.get(0).model().equals(model), "deployments", "the first deployment first", targets);
        dev.sluice.config.ConfigException.require(defaultMaxOutputTokens >= 1, "default_max_output_tokens", ">= 1",
                defaultMaxOutputTokens);
    }

    /** Whether it may run on more than one deployment. */
    public boolean hasFallbacks() {
        return targets.size() > 1;
    }

    /** The target for {@code deploymentId}, if the profile lists it. */
    public Optional<ProfileTarget> target(String deploymentId) {
        for (ProfileTarget t : targets) {
            if (t.deployment().equals(deploymentId)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    /**
     * This profile as it is sent to {@code deploymentId}: that deployment and its model in place
     * of the first ones, all else alike. The profile itself when {@code deploymentId} is its first.
     * A deployment the profile does not list (a rollout's target: a rollout may move a profile to a
     * deployment that is not among its fallbacks) runs the profile's own model, put first.
     */
    public ProfileConfig on(String deploymentId) {
        if (deploymentId.equals(deployment)) {
            return this;
        }
        ProfileTarget t = target(deploymentId).orElseGet(() -> new ProfileTarget(deploymentId, model, 1));
        List<ProfileTarget> reordered = new java.util.ArrayList<>(targets.size() + 1);
        reordered.add(t);
        targets.stream().filter(x -> !x.deployment().equals(deploymentId)).forEach(reordered::add);
        return new ProfileConfig(id, t.deployment(), t.model(), tokenizer, cacheReadCountsAgainstInputLimit,
                defaultMaxOutputTokens, outputReservation, limits, task, reordered, routing, fallback);
    }

    /** What the token estimator needs to know about this profile. */
    public EstimatorProfile estimatorProfile() {
        return new EstimatorProfile(id, tokenizer, cacheReadCountsAgainstInputLimit, defaultMaxOutputTokens,
                outputReservation);
    }
}
