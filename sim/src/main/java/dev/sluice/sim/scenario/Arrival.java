package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * How requests of one workload entry arrive. Rates may step at given times; a step applies from
 * its time on. {@code start} and {@code stop} bound the process.
 */
public sealed interface Arrival {

    /** Evenly spaced arrivals at {@code perSecond}. */
    record Constant(double perSecond, List<Step> steps) implements Arrival {
        public Constant {
            steps = List.copyOf(steps);
        }
    }

    /** A Poisson process at {@code perSecond}. */
    record Poisson(double perSecond, List<Step> steps) implements Arrival {
        public Poisson {
            steps = List.copyOf(steps);
        }
    }

    /**
     * Synchronised wake-ups: every {@code every}, at {@code offset} into the period, {@code workers}
     * requests arrive within {@code jitter} of each other (cron jobs, webhooks at the top of a minute).
     * Steps change {@code workers}.
     */
    record Burst(int workers, Duration every, Duration offset, Duration jitter, List<Step> steps) implements Arrival {
        public Burst {
            ConfigException.require(workers >= 0, "workers", ">= 0", workers);
            ConfigException.require(every.isPositive(), "every", "> 0", every);
            ConfigException.require(!jitter.isNegative(), "jitter", ">= 0", jitter);
            steps = List.copyOf(steps);
        }
    }

    /**
     * From {@code at} on, the rate (per second) or, for bursts, the number of workers is {@code value}.
     */
    record Step(Duration at, double value) {}

    /** A copy with every absolute time (step times) multiplied by {@code factor}; rates unchanged. */
    default Arrival scaled(double factor) {
        return switch (this) {
            case Constant c -> new Constant(c.perSecond, scale(c.steps, factor));
            case Poisson p -> new Poisson(p.perSecond, scale(p.steps, factor));
            case Burst b -> new Burst(b.workers, b.every, b.offset, b.jitter, scale(b.steps, factor));
        };
    }

    private static List<Step> scale(List<Step> steps, double factor) {
        return steps.stream().map(s -> new Step(Scaling.scale(s.at, factor), s.value)).toList();
    }

    static Arrival parse(YamlNode n) {
        n.required().allowOnly(Set.of("kind", "rate", "workers", "every", "offset", "jitter", "steps"));
        String kind = n.get("kind").text();
        boolean burst = kind.equals("burst");
        List<Step> steps = n.get("steps").items().stream().map(s -> {
            s.allowOnly(Set.of("at", burst ? "workers" : "rate"));
            double v = burst ? s.get("workers").longValue(0) : s.get("rate").ratePerSecond();
            return new Step(s.get("at").requiredDuration(), v);
        }).toList();
        return switch (kind) {
            case "constant" -> new Constant(n.get("rate").ratePerSecond(), steps);
            case "poisson" -> new Poisson(n.get("rate").ratePerSecond(), steps);
            case "burst" -> new Burst((int) n.get("workers").required().longValue(0),
                    n.get("every").duration(Duration.ofMinutes(1)), n.get("offset").duration(Duration.ZERO),
                    n.get("jitter").duration(Duration.ofMillis(200)), steps);
            default -> throw new ConfigException(n.get("kind").path(), "constant, poisson or burst", kind);
        };
    }
}
