package dev.sluice.sim.strategy;

import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.rollout.RolloutFleet;
import dev.sluice.runtime.rollout.Rollouts;
import dev.sluice.runtime.rollout.WarmupFleet;
import dev.sluice.runtime.rollout.Warmups;
import dev.sluice.sim.engine.EventLoop;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rollouts and warm-ups of a multi-replica run shared as {@code sluice serve} shares them:
 * every decision a replica makes reaches the others after {@link #RELAY} (the journal's relay
 * round), where it is restored as a journaled one is; and on a shared store the analysis judges
 * the fleet's figures ({@link RolloutFleet}, {@link WarmupFleet}): every {@link #EVERY} each replica
 * publishes its tallies and the lowest replica id judges the sum, through Redis
 * ({@code RedisRolloutFigures}, as the gateway) when the run has one, else through a table in
 * this process standing in for it (the replicas of a run never stop, so nothing goes stale).
 */
final class SharedRollouts {

    /** How long a decision takes to reach the other replicas: the change relay's round. */
    static final Duration RELAY = Duration.ofMillis(250);
    /** How often the replicas exchange their tallies, as {@code sluice serve} does. */
    static final Duration EVERY = Duration.ofMillis(250);

    private SharedRollouts() {}

    /**
     * Shares the decisions of {@code runtimes} (replica i named {@code "r" + i}); on a shared
     * store, judges on the fleet's figures too, through {@code redis} when given (one store per
     * replica, in order).
     */
    static void share(EventLoop loop, List<SluiceRuntime> runtimes, boolean sharedStore,
            List<dev.sluice.store.redis.RedisQuotaStore> redis) {
        for (int i = 0; i < runtimes.size(); i++) {
            int self = i;
            runtimes.get(i).rollouts().onStateChange((d, s) -> loop.after(RELAY.toNanos(), () -> {
                for (int j = 0; j < runtimes.size(); j++) {
                    if (j != self) {
                        runtimes.get(j).rollouts().restore(d.rollout(), s, d);
                    }
                }
            }));
            runtimes.get(i).warmups().onStateChange((d, s) -> loop.after(RELAY.toNanos(), () -> {
                for (int j = 0; j < runtimes.size(); j++) {
                    if (j != self) {
                        runtimes.get(j).warmups().restore(d.warmup(), s, d);
                    }
                }
            }));
        }
        if (!sharedStore) {
            return;
        }
        Map<String, String> table = new TreeMap<>();
        for (int i = 0; i < runtimes.size(); i++) {
            Rollouts rs = runtimes.get(i).rollouts();
            Warmups ws = runtimes.get(i).warmups();
            String id = "r" + i;
            Runnable exchange;
            if (!redis.isEmpty()) {
                var figures = dev.sluice.store.redis.RedisRolloutFigures.manual(redis.get(i), rs, ws, EVERY);
                exchange = figures::exchange;
            } else {
                rs.judgedByFleet(true);
                ws.judgedByFleet(true);
                exchange = () -> {
                    List<Rollouts.Published> own = rs.published();
                    List<Warmups.Published> ownWarmups = ws.published();
                    table.put(id, RolloutFleet.publication(own, rs.sent()) + WarmupFleet.lines(ownWarmups));
                    Map<String, String> others = new TreeMap<>(table);
                    others.remove(id);
                    WarmupFleet.round(ws, id, ownWarmups, others);
                    RolloutFleet.round(rs, id, own, others);
                };
            }
            Runnable[] round = new Runnable[1];
            round[0] = () -> {
                exchange.run();
                loop.after(EVERY.toNanos(), round[0]);
            };
            loop.after(EVERY.toNanos(), round[0]);
        }
    }
}
