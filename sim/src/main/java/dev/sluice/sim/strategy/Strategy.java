package dev.sluice.sim.strategy;

import java.util.List;

/**
 * A way of deciding, in front of the provider, what to send and when. Every attempt submitted must
 * end exactly once, through {@link StrategyContext#dispatch} or {@link StrategyContext#reject}.
 */
public interface Strategy {

    /** The names accepted by {@link #create}, in report order. */
    List<String> NAMES = List.of("none", "static", "seed-controller", "sluice");

    String name();

    /** A client attempt reaches the gateway. */
    void submit(Attempt attempt);

    /**
     * The attempt's client gave up while the attempt waits in the gateway. A strategy that takes it
     * out of its queue answers true and then never dispatches or refuses it; false (the default)
     * lets it end as usual, without its client.
     */
    default boolean clientGone(Attempt attempt) {
        return false;
    }

    /** Checks the strategy's own invariants; throws {@link IllegalStateException} when one is broken. */
    default void checkInvariants() {}

    /** Releases what the strategy holds outside the process (store connections). */
    default void close() {}

    /** Counters worth reporting about the strategy's own behaviour, by name; empty by default. */
    default java.util.Map<String, Long> diagnostics() {
        return java.util.Map.of();
    }

    /** Creates the named strategy for one run. */
    static Strategy create(String name, StrategyContext ctx) {
        return switch (name) {
            case "none" -> new NoneStrategy(ctx);
            case "static" -> new StaticStrategy(ctx);
            case "seed-controller" -> new SeedControllerStrategy(ctx);
            case "sluice" -> new SluiceStrategy(ctx);
            default -> throw new IllegalArgumentException("strategy: " + name + " (expected: one of " + NAMES + ")");
        };
    }
}
