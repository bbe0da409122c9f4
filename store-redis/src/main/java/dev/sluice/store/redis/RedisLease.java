package dev.sluice.store.redis;

import dev.sluice.store.LeaseHandle;

/**
 * A reservation held in Redis: its id, where its parts live, and each part's sorted-set member,
 * by which any later call (a settlement, a replayed release) finds exactly this lease.
 */
final class RedisLease implements LeaseHandle {

    private final String id;
    final PathLayout path;
    final byte[][] members;

    RedisLease(String id, PathLayout path, long[] amounts) {
        this.id = id;
        this.path = path;
        this.members = new byte[path.groups.length][];
        for (int g = 0; g < members.length; g++) {
            PathLayout.Group group = path.groups[g];
            members[g] = Packing.lease(id, amounts, group.bucketKeys(), group.masks());
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String toString() {
        return id;
    }
}
