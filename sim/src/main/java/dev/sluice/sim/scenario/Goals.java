package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code sluice} must achieve on a scenario (issue 5, item 6). The defaults are the goals for
 * every bundled scenario; a scenario may only name the ones that apply to it specially (the looser
 * 429 bound of the limit-cut and cold-start scenarios, the interactive bounds of the noisy
 * neighbour). Scenarios are never tuned to pass.
 *
 * @param maxProvider429Rate the highest provider 429 rate among dispatched requests
 * @param maxShareOfNone429Rate the highest 429 rate as a fraction of {@code none}'s
 * @param minUtilization the lowest utilisation of the binding limit where demand exceeds capacity
 * @param minJainIndex the lowest weighted Jain index
 * @param interactiveP99QueueWait the highest interactive p99 queue wait, where it applies
 * @param interactiveSuccessRate the lowest interactive success rate, where it applies
 */
public record Goals(double maxProvider429Rate, double maxShareOfNone429Rate, double minUtilization,
        double minJainIndex, Optional<Duration> interactiveP99QueueWait, Optional<Double> interactiveSuccessRate) {

    public static final Goals DEFAULT = new Goals(0.005, 0.1, 0.90, 0.98, Optional.empty(), Optional.empty());

    public Goals {
        ConfigException.require(maxProvider429Rate >= 0 && maxProvider429Rate <= 1, "max_provider_429_rate",
                "in [0, 1]", maxProvider429Rate);
    }

    static Goals parse(YamlNode n) {
        if (!n.present()) {
            return DEFAULT;
        }
        n.allowOnly(Set.of("max_provider_429_rate", "interactive_p99_queue_wait", "interactive_success_rate"));
        return new Goals(n.get("max_provider_429_rate").doubleValue(DEFAULT.maxProvider429Rate),
                DEFAULT.maxShareOfNone429Rate, DEFAULT.minUtilization, DEFAULT.minJainIndex,
                n.get("interactive_p99_queue_wait").present()
                        ? Optional.of(n.get("interactive_p99_queue_wait").requiredDuration()) : Optional.empty(),
                n.get("interactive_success_rate").present()
                        ? Optional.of(n.get("interactive_success_rate").requiredDouble()) : Optional.empty());
    }
}
