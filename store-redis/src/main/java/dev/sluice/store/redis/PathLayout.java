package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import dev.sluice.store.BucketPlan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A path resolved to Redis: its buckets split by hash tag into groups (one group unless the
 * grouping spreads the path over slots), with each group's keys and plan arguments built once.
 */
final class PathLayout {

    /** Buckets of one tag, in path order. */
    record Group(String tag, String leaseSet, String leasePrefix, String[] bucketKeys, BucketPlan[] plans,
            String[] reservePlanArgs, String[] settlePlanArgs) {}

    final Group[] groups;

    private PathLayout(Group[] groups) {
        this.groups = groups;
    }

    static PathLayout of(BucketPlan[] path, KeyLayout keys) {
        Map<String, List<Integer>> byTag = new LinkedHashMap<>();
        for (int i = 0; i < path.length; i++) {
            byTag.computeIfAbsent(keys.tagOf(path[i].scope()), t -> new ArrayList<>()).add(i);
        }
        Group[] groups = new Group[byTag.size()];
        int g = 0;
        for (Map.Entry<String, List<Integer>> e : byTag.entrySet()) {
            String tag = e.getKey();
            List<Integer> idx = e.getValue();
            String[] bucketKeys = new String[idx.size()];
            BucketPlan[] plans = new BucketPlan[idx.size()];
            List<String> reserveArgs = new ArrayList<>();
            List<String> settleArgs = new ArrayList<>();
            for (int j = 0; j < idx.size(); j++) {
                BucketPlan p = path[idx.get(j)];
                plans[j] = p;
                bucketKeys[j] = keys.bucket(tag, p);
                reserveArgs.add(Integer.toString(idx.get(j)));
                planArgs(p, reserveArgs);
                planArgs(p, settleArgs);
            }
            groups[g] = new Group(tag, g == 0 ? keys.leaseSet(tag) : keys.leasePartSet(tag), keys.leasePrefix(tag), bucketKeys, plans,
                    reserveArgs.toArray(String[]::new), settleArgs.toArray(String[]::new));
            g++;
        }
        return new PathLayout(groups);
    }

    /** A plan as scripts read it: dimension count, then ordinal, capacity, refill per nano. */
    static void planArgs(BucketPlan p, List<String> out) {
        int[] dims = p.limitedDimensions();
        out.add(Integer.toString(dims.length));
        for (int d : dims) {
            Dimension dim = Dimension.byOrdinal(d);
            out.add(Integer.toString(d));
            out.add(Long.toString(p.capacity(dim)));
            // Double.toString is the shortest text that reads back to the same double in Lua.
            out.add(Double.toString(p.refillPerNano(dim)));
        }
    }

    static String[] planArgs(BucketPlan p) {
        List<String> out = new ArrayList<>();
        planArgs(p, out);
        return out.toArray(String[]::new);
    }
}
