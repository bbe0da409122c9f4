package dev.sluice.governor;

import dev.sluice.limits.Dimension;
import dev.sluice.store.BucketState;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The governor's state at one moment, for the dashboard, the admin API, reports and tests.
 *
 * @param atNanos when it was taken, on the governor's clock
 * @param buckets every configured bucket
 * @param lanes per deployment: queues and fair shares
 */
public record GovernorSnapshot(long atNanos, List<BucketState> buckets, List<LaneSnapshot> lanes) {

    public GovernorSnapshot {
        buckets = List.copyOf(buckets);
        lanes = List.copyOf(lanes);
    }

    /**
     * @param deployment the deployment
     * @param queued waiting requests per class
     * @param shares per tenant
     */
    public record LaneSnapshot(String deployment, Map<TrafficClass, Integer> queued, List<ShareSnapshot> shares) {
        public LaneSnapshot {
            queued = Map.copyOf(queued);
            shares = List.copyOf(shares);
        }
    }

    /**
     * One tenant's share of one deployment, per minute, per rate dimension the deployment limits.
     *
     * @param tenant tenant id
     * @param weight configured weight
     * @param guaranteedPerMinute its weighted share among active tenants, or its configured minimum if higher
     * @param usedPerMinute its recent rate
     * @param borrowedPerMinute what it uses above its guarantee
     * @param lastRevokedAtNanos when its borrowing was last revoked in favour of another tenant
     * @param revocations how many times that happened
     * @param admitted requests admitted
     */
    public record ShareSnapshot(String tenant, double weight, Map<Dimension, Double> guaranteedPerMinute,
            Map<Dimension, Double> usedPerMinute, Map<Dimension, Double> borrowedPerMinute,
            OptionalLong lastRevokedAtNanos, long revocations, long admitted) {
        public ShareSnapshot {
            guaranteedPerMinute = Map.copyOf(guaranteedPerMinute);
            usedPerMinute = Map.copyOf(usedPerMinute);
            borrowedPerMinute = Map.copyOf(borrowedPerMinute);
        }
    }
}
