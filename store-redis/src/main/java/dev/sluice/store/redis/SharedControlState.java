package dev.sluice.store.redis;

import io.lettuce.core.Range;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What replicas share beside the buckets: live-replica heartbeats (the N of a fail-open-local
 * share) and each deployment's ramp stage. Adaptive rate factors and cooldowns are not here: they
 * are stored with the deployment's bucket by {@link RedisQuotaStore#control}, so a 429 seen by one
 * replica slows every replica's next admission.
 *
 * <p>Every call is one round trip and throws {@link StoreUnavailableException} when Redis cannot
 * answer.
 */
public final class SharedControlState {

    private final RedisQuotaStore store;
    private volatile int lastLive = 1;

    SharedControlState(RedisQuotaStore store) {
        this.store = store;
    }

    /**
     * Records that this replica is alive now and returns how many replicas sent a heartbeat within
     * {@code within} (this one included). Call it every few seconds; {@code within} should cover
     * two or three intervals.
     */
    public int heartbeat(Duration within) {
        Objects.requireNonNull(within, "within");
        RedisLink link = store.link();
        String key = store.keys().replicas();
        long now = nowMillis();
        link.await(link.commands().zadd(key, (double) now, store.config().replicaId()));
        link.await(link.commands().zremrangebyscore(key, Range.create(Double.NEGATIVE_INFINITY,
                (double) (now - within.toMillis()))));
        int live = (int) Math.max(1, link.await(link.commands().zcard(key)));
        lastLive = live;
        return live;
    }

    /** Replicas alive at the last {@link #heartbeat}; 1 before the first. Never calls Redis. */
    public int lastKnownLiveReplicas() {
        return lastLive;
    }

    /** Removes this replica from the live set (on orderly shutdown). */
    public void leave() {
        RedisLink link = store.link();
        link.await(link.commands().zrem(store.keys().replicas(), store.config().replicaId()));
    }

    /** Sets a deployment's ramp stage (0 is the first). */
    public void setRampStage(String deployment, int stage) {
        Objects.requireNonNull(deployment, "deployment");
        if (stage < 0) {
            throw new IllegalArgumentException("stage: " + stage + " (expected: >= 0)");
        }
        RedisLink link = store.link();
        link.await(link.commands().hset(store.keys().ramp(), deployment, Integer.toString(stage)));
    }

    /** A deployment's ramp stage, if one was set. */
    public OptionalInt rampStage(String deployment) {
        RedisLink link = store.link();
        String v = link.await(link.commands().hget(store.keys().ramp(), deployment));
        return v == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(v));
    }

    /** Every deployment's ramp stage. */
    public Map<String, Integer> rampStages() {
        RedisLink link = store.link();
        Map<String, String> raw = link.await(link.commands().hgetall(store.keys().ramp()));
        Map<String, Integer> out = new HashMap<>();
        raw.forEach((k, v) -> out.put(k, Integer.parseInt(v)));
        return out;
    }

    /** The server's wall time, or the test clock's when the store runs on one. */
    private long nowMillis() {
        if (store.config().testClock().isPresent()) {
            return store.config().testClock().get().epochMillis();
        }
        RedisLink link = store.link();
        List<String> t = link.await(link.commands().time());
        return Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
    }
}
