package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Something that happens to a provider at a set time. */
public sealed interface ScriptedEvent {

    Duration at();

    String deployment();

    /** The provider's limits become {@code factor} times what they are configured to be. */
    record LimitCut(Duration at, String deployment, double factor) implements ScriptedEvent {
        public LimitCut {
            ConfigException.require(factor > 0 && factor <= 10, "factor", "in (0, 10]", factor);
        }
    }

    /** The provider's limits return to what they are configured to be. */
    record LimitRestore(Duration at, String deployment) implements ScriptedEvent {}

    /**
     * For {@code duration}, a share {@code errorRate} of requests fails with one of {@code errors}
     * (chosen uniformly), and every answer is slower by {@code latencySpike}. Server errors and
     * overloads carry {@code retry-after: retryAfter} when given; at most {@code count} requests
     * fail in the burst when given (a single 503 is {@code count: 1, error_rate: 1}).
     */
    record FaultBurst(Duration at, String deployment, Duration duration, double errorRate, List<FaultKind> errors,
            Duration latencySpike, java.util.Optional<Duration> retryAfter, java.util.OptionalInt count)
            implements ScriptedEvent {
        public FaultBurst {
            ConfigException.require(errorRate >= 0 && errorRate <= 1, "error_rate", "in [0, 1]", errorRate);
            ConfigException.require(duration.isPositive(), "duration", "> 0", duration);
            errors = List.copyOf(errors);
            ConfigException.require(!errors.isEmpty() || errorRate == 0, "errors", "at least one kind", "none");
            retryAfter.ifPresent(r -> ConfigException.require(!r.isNegative(), "retry_after", ">= 0", r));
            count.ifPresent(c -> ConfigException.require(c >= 1, "count", ">= 1", c));
        }
    }

    /** A copy happening at {@code at x factor}; lengths of phenomena stay as they are. */
    default ScriptedEvent scaled(double factor) {
        Duration t = Scaling.scale(at(), factor);
        return switch (this) {
            case LimitCut c -> new LimitCut(t, c.deployment, c.factor);
            case LimitRestore r -> new LimitRestore(t, r.deployment);
            case FaultBurst f -> new FaultBurst(t, f.deployment, f.duration, f.errorRate, f.errors, f.latencySpike,
                    f.retryAfter, f.count);
        };
    }

    static ScriptedEvent parse(YamlNode n) {
        n.required();
        String kind = n.get("kind").text();
        Duration at = n.get("at").requiredDuration();
        String deployment = n.get("deployment").text();
        return switch (kind) {
            case "limit_cut" -> {
                n.allowOnly(Set.of("kind", "at", "deployment", "factor"));
                yield new LimitCut(at, deployment, n.get("factor").requiredDouble());
            }
            case "limit_restore" -> {
                n.allowOnly(Set.of("kind", "at", "deployment"));
                yield new LimitRestore(at, deployment);
            }
            case "fault_burst" -> {
                n.allowOnly(Set.of("kind", "at", "deployment", "duration", "error_rate", "errors", "latency_spike",
                        "retry_after", "count"));
                List<FaultKind> errors = n.get("errors").present()
                        ? n.get("errors").items().stream().map(FaultKind::parse).toList()
                        : List.of(FaultKind.SERVER_ERROR);
                yield new FaultBurst(at, deployment, n.get("duration").requiredDuration(), n.get("error_rate").requiredDouble(),
                        errors, n.get("latency_spike").duration(Duration.ZERO), n.get("retry_after").optDuration(),
                        n.get("count").present() ? java.util.OptionalInt.of((int) n.get("count").requiredLong())
                                : java.util.OptionalInt.empty());
            }
            default -> throw new ConfigException(n.get("kind").path(), "limit_cut, limit_restore or fault_burst", kind);
        };
    }
}
