package dev.sluice.store.redis;

import dev.sluice.limits.Scope;
import java.util.Objects;

/**
 * Which Redis Cluster hash tag a bucket's keys carry. Buckets with the same tag live in one slot,
 * so a path whose buckets share a tag is reserved in one atomic script call; a path that spans
 * tags is reserved group by group (see docs/REDIS.md for what that costs).
 */
@FunctionalInterface
public interface SlotGrouping {

    /** The tag for {@code scope}'s bucket, or {@code ""} for the namespace's own tag. */
    String tag(Scope scope);

    /**
     * Every bucket in the namespace's slot: one call per admission and per settlement, at the
     * price of keeping the whole namespace on one cluster shard. The default.
     */
    static SlotGrouping single() {
        return scope -> "";
    }

    /** Every bucket in its own slot: spreads load over shards, one call per bucket on the path. */
    static SlotGrouping perBucket() {
        return Scope::key;
    }

    /**
     * Shared buckets (organisation, model profile, deployment) stay in the namespace's slot and
     * each tenant-owned bucket (tenant, team, key) gets {@code tenantTag}'s answer, for
     * deployments that split tenants across shards.
     */
    static SlotGrouping sharedAndTenants(java.util.function.Function<Scope, String> tenantTag) {
        Objects.requireNonNull(tenantTag, "tenantTag");
        return scope -> scope.level().ownedByTenant() ? tenantTag.apply(scope) : "";
    }
}
