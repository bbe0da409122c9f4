package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One stream of client requests: sent with one API key to one model profile.
 *
 * @param name a label for reports and random streams; defaults to {@code key/profile}
 * @param key the configured API key id the requests carry
 * @param profile the model profile they ask for; empty for the key's first profile
 * @param trafficClass overrides the key's class; empty for the key's default
 * @param arrival when requests arrive
 * @param start when the stream starts
 * @param stop when it stops; empty for the end of the run
 * @param promptTokens true prompt size (everything the provider counts as input, cache reads included)
 * @param cacheReadShare fraction of the prompt read from the provider's cache, 0 to 1
 * @param maxTokens the request's {@code max_tokens}
 * @param outputTokens tokens the model would produce; cut at {@code max_tokens}
 * @param streamingShare probability that a request streams, 0 to 1
 * @param deadline the client's deadline; empty for the key's default (or none)
 * @param inputEstimateError the preflight tokenizer's relative error on the prompt, drawn uniformly
 *     from {@code [-e, +e]}: the simulator has no prompt text, so it models the count's error directly
 * @param retry how the client retries
 */
public record WorkloadSpec(String name, String key, Optional<String> profile, Optional<TrafficClass> trafficClass,
        Arrival arrival, Duration start, Optional<Duration> stop, Distribution promptTokens, double cacheReadShare,
        Distribution maxTokens, Distribution outputTokens, double streamingShare, Optional<Duration> deadline,
        double inputEstimateError, RetryPolicy retry) {

    /** Tokenizers count OpenAI prompts within a few percent; 3% by default. */
    public static final double DEFAULT_INPUT_ESTIMATE_ERROR = 0.03;

    public WorkloadSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(key, "key");
        ConfigException.require(cacheReadShare >= 0 && cacheReadShare <= 1, "cache_read_share", "in [0, 1]",
                cacheReadShare);
        ConfigException.require(streamingShare >= 0 && streamingShare <= 1, "streaming", "in [0, 1]",
                streamingShare);
        ConfigException.require(inputEstimateError >= 0 && inputEstimateError < 1, "input_estimate_error",
                "in [0, 1)", inputEstimateError);
    }

    WorkloadSpec scaled(double factor) {
        return new WorkloadSpec(name, key, profile, trafficClass, arrival.scaled(factor), Scaling.scale(start, factor),
                stop.map(s -> Scaling.scale(s, factor)), promptTokens, cacheReadShare, maxTokens, outputTokens,
                streamingShare, deadline, inputEstimateError, retry);
    }

    static WorkloadSpec parse(YamlNode n) {
        n.required().allowOnly(Set.of("name", "key", "profile", "class", "arrival", "start", "stop", "prompt_tokens",
                "cache_read_share", "max_tokens", "output_tokens", "streaming", "deadline", "input_estimate_error",
                "retry"));
        String key = n.get("key").text();
        Optional<String> profile = n.get("profile").optText();
        Optional<TrafficClass> c = n.get("class").optText().map(s -> TrafficClass.byWireName(s)
                .orElseThrow(() -> new ConfigException(n.get("class").path(),
                        "one of critical, interactive, batch, eval, background", s)));
        return new WorkloadSpec(n.get("name").text(key + profile.map(p -> "/" + p).orElse("")), key, profile, c,
                Arrival.parse(n.get("arrival")), n.get("start").duration(Duration.ZERO),
                n.get("stop").present() ? Optional.of(n.get("stop").requiredDuration()) : Optional.empty(),
                Distribution.parse(n.get("prompt_tokens")), n.get("cache_read_share").doubleValue(0),
                Distribution.parse(n.get("max_tokens")), Distribution.parse(n.get("output_tokens")),
                n.get("streaming").doubleValue(0),
                n.get("deadline").present() ? Optional.of(n.get("deadline").requiredDuration()) : Optional.empty(),
                n.get("input_estimate_error").doubleValue(DEFAULT_INPUT_ESTIMATE_ERROR), RetryPolicy.parse(n.get("retry")));
    }
}
