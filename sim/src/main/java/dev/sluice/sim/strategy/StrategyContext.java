package dev.sluice.sim.strategy;

import dev.sluice.sim.engine.EventLoop;
import dev.sluice.sim.engine.RandomStreams;
import dev.sluice.sim.provider.ProviderReply;
import dev.sluice.sim.scenario.Scenario;
import java.util.function.Consumer;

/** What a strategy may do: read the scenario, schedule in virtual time, send to a provider, refuse. */
public interface StrategyContext {

    EventLoop loop();

    Scenario scenario();

    RandomStreams random();

    /**
     * Sends the attempt to its deployment's provider. {@code onReply} runs when the answer is
     * complete, before the client sees it (to settle and learn); it may instead ask for the same
     * attempt to be sent again after a delay (a gateway retry), and then sees that answer too.
     *
     * @param queuedNanos how long the attempt waited in the gateway
     */
    default void dispatch(Attempt attempt, long queuedNanos, ReplyHandler onReply) {
        dispatch(attempt, queuedNanos, attempt.request().deployment(), onReply);
    }

    /**
     * Sends the attempt to {@code deployment}'s provider: the one its routing chose, which for a
     * profile with several deployments need not be the request's first.
     */
    void dispatch(Attempt attempt, long queuedNanos, String deployment, ReplyHandler onReply);

    /**
     * Sends a copy of the attempt's request to {@code deployment}'s provider for a rollout's shadow
     * phase: the provider serves it (it takes its share of the provider's limits), its answer goes
     * to {@code onReply} and never to the client, and the client's own attempt is not affected.
     */
    void shadow(Attempt attempt, String deployment, Consumer<ProviderReply> onReply);

    /** What a strategy does with a provider's answer. */
    @FunctionalInterface
    interface ReplyHandler {
        /**
         * Empty to pass the answer on to the client; a delay in nanoseconds to send the attempt
         * again; {@link #ELSEWHERE} when the strategy moves it to another deployment itself (it is
         * back at the gateway, which dispatches or rejects it).
         */
        java.util.OptionalLong onReply(ProviderReply reply);

        /** The answer that moves the attempt back to the gateway, for another deployment. */
        java.util.OptionalLong ELSEWHERE = java.util.OptionalLong.of(-1);

        /** Learns from the answer, then passes it on. */
        static ReplyHandler passOn(Consumer<ProviderReply> learn) {
            return r -> {
                learn.accept(r);
                return java.util.OptionalLong.empty();
            };
        }
    }

    /** Refuses the attempt locally after it waited {@code queuedNanos}. */
    void reject(Attempt attempt, long queuedNanos, LocalRejection rejection);

    /**
     * The Redis server that {@code store.kind: redis} scenarios use for the sluice strategy's shared
     * store; empty to model the shared store in memory.
     */
    java.util.Optional<String> redisUri();

    /** Whether the sluice strategy runs adaptive control and the ramp (true unless switched off to study the governor alone). */
    boolean adaptive();

    /** Mean output tokens of a workload entry's requests, for strategies that must guess a duration. */
    double meanOutputTokens(String workload);
}
