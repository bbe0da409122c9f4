package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.util.Objects;

/**
 * Where quota state lives.
 *
 * @param kind in this process, or shared through Redis
 * @param redisUri the Redis server, for {@link Kind#REDIS}
 * @param failurePolicy what admission does when the shared store cannot be reached
 * @param replicas how many gateway replicas share the limits; with {@link FailurePolicy#FAIL_OPEN_LOCAL}
 *     each enforces 1/replicas of every limit locally while the store is down
 */
public record StoreSettings(Kind kind, String redisUri, FailurePolicy failurePolicy, int replicas) {

    /** Where quota state lives. */
    public enum Kind {
        MEMORY, REDIS
    }

    /** What to do when the shared store is unreachable. */
    public enum FailurePolicy {
        /** Refuse admission: no limit is ever exceeded. */
        FAIL_CLOSED,
        /** Admit against a local share of every limit. */
        FAIL_OPEN_LOCAL;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public static final String DEFAULT_REDIS_URI = "redis://127.0.0.1:6379";

    public StoreSettings {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(redisUri, "redisUri");
        Objects.requireNonNull(failurePolicy, "failurePolicy");
        ConfigException.require(replicas >= 1, "replicas", ">= 1", replicas);
        ConfigException.require(redisUri.startsWith("redis://") || redisUri.startsWith("rediss://"), "redis_uri",
                "a redis:// or rediss:// URI", redisUri.replaceAll("//[^@/]*@", "//***@"));
    }

    public static StoreSettings defaults() {
        return new StoreSettings(Kind.MEMORY, DEFAULT_REDIS_URI, FailurePolicy.FAIL_CLOSED, 1);
    }
}
