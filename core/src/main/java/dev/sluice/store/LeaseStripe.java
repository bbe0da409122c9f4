package dev.sluice.store;

import java.util.List;

/**
 * One stripe of the in-memory store's open leases: a doubly linked list threaded through the
 * leases themselves, so opening and ending a lease allocates nothing and touches no counter
 * shared with other threads. A thread opens its leases in the stripe its id picks; any thread
 * may end them. Guarded by its {@link BriefLock}, which also guards the leases' links and open flags.
 */
final class LeaseStripe extends BriefLock {

    private final int index;
    private final int stripes;
    private MemoryLease head;
    private int open;
    private long opened;
    // Stripes are allocated together: keep each one's hot fields off its neighbours' cache line.
    @SuppressWarnings("unused")
    private long p1, p2, p3, p4, p5, p6, p7;

    LeaseStripe(int index, int stripes) {
        this.index = index;
        this.stripes = stripes;
    }

    /** Links {@code lease} in and gives it a serial unique in the store. */
    void add(MemoryLease lease) {
        lock();
        try {
            lease.serial = opened++ * stripes + index;
            lease.next = head;
            if (head != null) {
                head.prev = lease;
            }
            head = lease;
            open++;
        } finally {
            unlock();
        }
    }

    /** Ends {@code lease} if it is open; true for the one caller that ended it. */
    boolean close(MemoryLease lease) {
        lock();
        try {
            if (!lease.open) {
                return false;
            }
            lease.open = false;
            unlink(lease);
            return true;
        } finally {
            unlock();
        }
    }

    /** Ends every open lease that expires at or before {@code now}, adding each to {@code ended}. */
    void closeExpired(long now, List<MemoryLease> ended) {
        lock();
        try {
            for (MemoryLease l = head; l != null; ) {
                MemoryLease next = l.next;
                if (l.expiresAt <= now) {
                    l.open = false;
                    unlink(l);
                    ended.add(l);
                }
                l = next;
            }
        } finally {
            unlock();
        }
    }

    int open() {
        lock();
        try {
            return open;
        } finally {
            unlock();
        }
    }

    private void unlink(MemoryLease lease) {
        if (lease.prev != null) {
            lease.prev.next = lease.next;
        } else {
            head = lease.next;
        }
        if (lease.next != null) {
            lease.next.prev = lease.prev;
        }
        lease.prev = null;
        lease.next = null;
        open--;
    }
}
