package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import dev.sluice.store.BucketPlan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A path resolved to Redis: its buckets split by hash tag into groups (one group unless the
 * grouping spreads the path over slots), with each group's keys and packed plans built once, so a
 * call only adds what changes (time, amounts, the lease).
 */
final class PathLayout {

    /**
     * Buckets of one tag, in path order.
     *
     * @param keys the group's lease set, then its bucket keys, as sent
     * @param bucketKeys the bucket keys alone, for lease members
     * @param masks per bucket a bit per limited dimension
     * @param packedPlans the plans as the script reads them
     */
    record Group(String tag, byte[][] keys, byte[][] bucketKeys, int[] masks, byte[] packedPlans) {}

    final Group[] groups;

    private PathLayout(Group[] groups) {
        this.groups = groups;
    }

    static PathLayout of(BucketPlan[] path, KeyLayout keys) {
        if (Dimension.COUNT > 16) {
            throw new IllegalStateException("dimensions: " + Dimension.COUNT + " (expected: at most 16 in a lease mask)");
        }
        Map<String, List<Integer>> byTag = new LinkedHashMap<>();
        for (int i = 0; i < path.length; i++) {
            byTag.computeIfAbsent(keys.tagOf(path[i].scope()), t -> new ArrayList<>()).add(i);
        }
        if (path.length > 255) {
            throw new IllegalArgumentException("path: " + path.length + " buckets (expected: at most 255)");
        }
        Group[] groups = new Group[byTag.size()];
        int g = 0;
        for (Map.Entry<String, List<Integer>> e : byTag.entrySet()) {
            String tag = e.getKey();
            List<Integer> idx = e.getValue();
            int n = idx.size();
            byte[][] all = new byte[n + 1][];
            byte[][] bucketKeys = new byte[n][];
            int[] masks = new int[n];
            BucketPlan[] plans = new BucketPlan[n];
            int[] pathIndex = new int[n];
            all[0] = Packing.key(g == 0 ? keys.leaseSet(tag) : keys.leasePartSet(tag));
            for (int j = 0; j < n; j++) {
                BucketPlan p = path[idx.get(j)];
                plans[j] = p;
                pathIndex[j] = idx.get(j);
                bucketKeys[j] = Packing.key(keys.bucket(tag, p));
                all[j + 1] = bucketKeys[j];
                masks[j] = Packing.mask(p);
            }
            groups[g] = new Group(tag, all, bucketKeys, masks, Packing.plans(plans, pathIndex));
            g++;
        }
        return new PathLayout(groups);
    }
}
