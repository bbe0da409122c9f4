package dev.sluice.store.redis;

import dev.sluice.store.LeaseHandle;

/** A reservation held in Redis: its id and where its parts live. */
final class RedisLease implements LeaseHandle {

    private final String id;
    final PathLayout path;

    RedisLease(String id, PathLayout path) {
        this.id = id;
        this.path = path;
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
