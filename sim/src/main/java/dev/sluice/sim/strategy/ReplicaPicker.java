package dev.sluice.sim.strategy;

import dev.sluice.sim.scenario.Scenario;
import java.util.SplittableRandom;

/**
 * The load balancer in front of a scenario's replicas: which replica takes the next arrival, as
 * the scenario's {@link Scenario.Proxy} says. Uneven spreading draws from a stream of its own, so
 * every strategy on the same seed sees the same replica for the same arrival order.
 */
final class ReplicaPicker {

    private final int replicas;
    private final Scenario.Proxy proxy;
    private final SplittableRandom random;
    private long routed;

    ReplicaPicker(StrategyContext ctx) {
        this.replicas = ctx.scenario().replicas();
        this.proxy = ctx.scenario().proxy();
        this.random = ctx.random().stream("proxy");
    }

    /** The replica that takes the next arrival, in {@code [0, replicas)}. */
    int next() {
        if (replicas == 1) {
            return 0;
        }
        if (proxy == Scenario.Proxy.ROUND_ROBIN) {
            return (int) (routed++ % replicas);
        }
        // Replica i weighs n - i: of n (n + 1) / 2 parts, the first takes n, the last one.
        long parts = (long) replicas * (replicas + 1) / 2;
        long draw = random.nextLong(parts);
        for (int i = 0; i < replicas; i++) {
            draw -= replicas - i;
            if (draw < 0) {
                return i;
            }
        }
        return replicas - 1;
    }
}
