package dev.sluice.store.redis;

import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutFleet;
import dev.sluice.runtime.rollout.Rollouts;
import dev.sluice.runtime.rollout.WarmupFleet;
import dev.sluice.runtime.rollout.Warmups;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Lets the replicas sharing a Redis namespace judge each rollout on the fleet's figures
 * ({@link RolloutFleet}). Every {@code every}, on a thread of its own (never on the request
 * path), one library call ({@code fleet}, the fleet view's) writes this replica's tally of each
 * running rollout's interval into {@code ns:{ns}:rollouts} and reads every other replica's fresh
 * one (fresh for three rounds, by Redis's clock or the test clock); the replica with the lowest id
 * then judges the sum; and each rollout's growth ceiling counts what the others sent to its target
 * (their latest publication) with this replica's own sends. Given the runtime's warm-ups, the
 * same call carries each warm-up's minute so far, judged on the fleet's attempts by the lowest id
 * ({@link WarmupFleet}). While it runs, the rollouts (and warm-ups) no longer judge on the
 * runtime's tick. While Redis cannot answer, no rollout or warm-up minute is judged by the fleet:
 * the interval (a warm-up's rate, even past its duration) runs on, and the first round Redis
 * answers judges it; the others' sends last read still count in their minutes.
 */
public final class RedisRolloutFigures implements AutoCloseable {

    private final RedisQuotaStore store;
    private final Rollouts rollouts;
    private final Optional<Warmups> warmups;
    private final Duration freshFor;
    private final ScheduledExecutorService timer;

    private RedisRolloutFigures(RedisQuotaStore store, Rollouts rollouts, Optional<Warmups> warmups, Duration every,
            boolean scheduled) {
        this.store = Objects.requireNonNull(store, "store");
        this.rollouts = Objects.requireNonNull(rollouts, "rollouts");
        this.warmups = Objects.requireNonNull(warmups, "warmups");
        if (!every.isPositive()) {
            throw new IllegalArgumentException("every: " + every + " (expected: > 0)");
        }
        this.freshFor = every.multipliedBy(3);
        this.timer = scheduled ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-rollout-figures");
            t.setDaemon(true);
            return t;
        }) : null;
        rollouts.judgedByFleet(true);
        warmups.ifPresent(w -> w.judgedByFleet(true));
    }

    /**
     * Exchanges now and then every {@code every} until closed; the rollouts and the warm-ups are
     * judged on the fleet's figures from now.
     */
    public static RedisRolloutFigures start(RedisQuotaStore store, Rollouts rollouts, Warmups warmups, Duration every) {
        RedisRolloutFigures f = new RedisRolloutFigures(store, rollouts, Optional.of(warmups), every, true);
        f.exchange();
        f.timer.scheduleWithFixedDelay(f::exchange, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return f;
    }

    /** One that exchanges only when {@link #exchange} is called (tests, the simulator); rollouts only. */
    public static RedisRolloutFigures manual(RedisQuotaStore store, Rollouts rollouts, Duration every) {
        return new RedisRolloutFigures(store, rollouts, Optional.empty(), every, false);
    }

    /** One that exchanges only when {@link #exchange} is called (tests, the simulator), for rollouts and warm-ups. */
    public static RedisRolloutFigures manual(RedisQuotaStore store, Rollouts rollouts, Warmups warmups, Duration every) {
        return new RedisRolloutFigures(store, rollouts, Optional.of(warmups), every, false);
    }

    /**
     * Publishes this replica's tallies and sends to the targets, reads the others' and judges what
     * this replica decides; one round trip. Returns the decisions made, none when Redis did not answer.
     */
    public synchronized List<RolloutDecision> exchange() {
        List<Rollouts.Published> own = rollouts.published();
        List<Warmups.Published> ownWarmups = warmups.map(Warmups::published).orElse(List.of());
        List<Object> out;
        try {
            out = call(RolloutFleet.publication(own, rollouts.sent()) + WarmupFleet.lines(ownWarmups));
        } catch (RuntimeException e) {
            // Redis down, or anything else: the timer must keep running; the interval is judged later.
            return List.of();
        }
        Map<String, String> others = new TreeMap<>();
        for (int i = 1; i + 1 < out.size(); i += 2) {
            others.put((String) out.get(i), (String) out.get(i + 1));
        }
        warmups.ifPresent(w -> WarmupFleet.round(w, store.config().replicaId(), ownWarmups, others));
        return RolloutFleet.round(rollouts, store.config().replicaId(), own, others);
    }

    /**
     * Stops exchanging and withdraws this replica's tallies, so that the next replica decides at
     * once; the rollouts are judged on this replica's tick again.
     */
    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
        rollouts.judgedByFleet(false);
        warmups.ifPresent(w -> w.judgedByFleet(false));
        try {
            call("");
        } catch (RuntimeException e) {
            // It goes stale by itself within three rounds.
        }
    }

    private List<Object> call(String publication) {
        return store.link().callList(Library.Fn.FLEET, new byte[][] {Packing.key(store.keys().rollouts())},
                store.clock(), store.config().replicaId(), freshFor.toNanos(), publication);
    }
}
