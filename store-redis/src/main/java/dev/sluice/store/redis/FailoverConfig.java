package dev.sluice.store.redis;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;

/**
 * Failure policy of a {@link FailoverQuotaStore}.
 *
 * @param defaultPolicy for deployments not named in {@code perDeployment}, and for paths without
 *     a deployment bucket
 * @param perDeployment policy by deployment id
 * @param retryAfter after a failure the shared store is not asked again for this long; one call
 *     then probes it
 * @param dailyResetZone daily caps of the local fallback reset at midnight here
 */
public record FailoverConfig(FailurePolicy defaultPolicy, Map<String, FailurePolicy> perDeployment,
        Duration retryAfter, ZoneId dailyResetZone) {

    /** One second: an outage costs one slow call per second, and recovery is noticed within one. */
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

    public FailoverConfig {
        Objects.requireNonNull(defaultPolicy, "defaultPolicy");
        Objects.requireNonNull(perDeployment, "perDeployment");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(dailyResetZone, "dailyResetZone");
        perDeployment = Map.copyOf(perDeployment);
        if (!retryAfter.isPositive()) {
            throw new IllegalArgumentException("retryAfter: " + retryAfter + " (expected: > 0)");
        }
    }

    public FailurePolicy policy(String deployment) {
        return perDeployment.getOrDefault(deployment, defaultPolicy);
    }
}
