package dev.sluice.sim.scenario;

import dev.sluice.config.ConfigException;
import dev.sluice.runtime.yaml.YamlNode;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code sluice} must achieve on a scenario, beside the naive clients ({@code none}) of the
 * same run (issue 16, item 8). Every goal applies by default; a scenario turns one off
 * ({@code off}) or changes its bound. Zero lost requests always applies, to every strategy.
 * Scenarios are never tuned to pass.
 *
 * @param interactiveSuccess the lowest interactive success rate, and at least {@code none}'s, where
 *     the interactive demand alone fits the capacity
 * @param maxProvider429Rate the highest provider 429 rate among dispatched attempts (at least 1%
 *     where the provider cuts its own limits: a warm-up or an unannounced change)
 * @param minUtilization the lowest utilisation of the binding limit over the saturated minutes of a
 *     saturated deployment, and at least {@code none}'s
 * @param minJainIndex the lowest weighted Jain index
 * @param noTimeouts no request still queued or generating when its client's deadline passes
 * @param interactiveP99QueueWait the highest interactive p99 queue wait, where a scenario sets one
 */
public record Goals(Optional<Double> interactiveSuccess, Optional<Double> maxProvider429Rate,
        Optional<Double> minUtilization, Optional<Double> minJainIndex, boolean noTimeouts,
        Optional<Duration> interactiveP99QueueWait) {

    /** The bound that applies when a provider cuts its own limits: "1% under limit cuts and cold starts". */
    public static final double CUT_429_RATE = 0.01;

    public static final Goals DEFAULT = new Goals(Optional.of(0.99), Optional.of(0.005), Optional.of(0.90),
            Optional.of(0.98), true, Optional.empty());

    public Goals {
        interactiveSuccess.ifPresent(v -> ConfigException.require(v >= 0 && v <= 1, "interactive_success",
                "in [0, 1]", v));
        maxProvider429Rate.ifPresent(v -> ConfigException.require(v >= 0 && v <= 1, "provider_429_rate",
                "in [0, 1]", v));
        minUtilization.ifPresent(v -> ConfigException.require(v >= 0 && v <= 1, "utilization", "in [0, 1]", v));
        minJainIndex.ifPresent(v -> ConfigException.require(v >= 0 && v <= 1, "jain", "in [0, 1]", v));
    }

    static Goals parse(YamlNode n) {
        if (!n.present()) {
            return DEFAULT;
        }
        n.allowOnly(Set.of("interactive_success", "provider_429_rate", "utilization", "jain", "timeouts",
                "interactive_p99_queue_wait"));
        Optional<Duration> p99 = off(n.get("interactive_p99_queue_wait")) ? Optional.empty()
                : n.get("interactive_p99_queue_wait").optDuration();
        YamlNode t = n.get("timeouts");
        boolean timeouts = !t.present() || !off(t);
        if (t.present() && !off(t)) {
            ConfigException.require(t.longValue(0) == 0, t.path(), "0 or off", t.describe());
        }
        return new Goals(bound(n.get("interactive_success"), DEFAULT.interactiveSuccess),
                bound(n.get("provider_429_rate"), DEFAULT.maxProvider429Rate),
                bound(n.get("utilization"), DEFAULT.minUtilization), bound(n.get("jain"), DEFAULT.minJainIndex),
                timeouts, p99);
    }

    /** {@code off} (or YAML's false, which {@code off} may parse as) turns a goal off. */
    private static boolean off(YamlNode n) {
        return n.json().map(j -> j.isBoolean() ? !j.asBoolean() : j.isTextual() && j.asText().strip().equals("off"))
                .orElse(false);
    }

    private static Optional<Double> bound(YamlNode n, Optional<Double> fallback) {
        if (!n.present()) {
            return fallback;
        }
        return off(n) ? Optional.empty() : Optional.of(n.requiredDouble());
    }
}
