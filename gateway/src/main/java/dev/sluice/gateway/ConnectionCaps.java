package dev.sluice.gateway;

import java.lang.management.ManagementFactory;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many client connections are open, in total and per remote address, against their caps.
 * Shared by every event loop of a gateway; thread-safe.
 */
final class ConnectionCaps {

    /** Descriptors kept for everything that is not a client connection: upstream calls, files, the store. */
    static final double CLIENT_SHARE_OF_DESCRIPTORS = 0.5;

    private final int total;
    private final int perAddress;
    private final AtomicInteger open = new AtomicInteger();
    /** Connections beyond a cap held open until they are answered 503 (or time out). */
    private final AtomicInteger refusing = new AtomicInteger();
    private final ConcurrentHashMap<String, Integer> byAddress = new ConcurrentHashMap<>();

    ConnectionCaps(int total, int perAddress) {
        this.total = total;
        this.perAddress = perAddress;
    }

    /**
     * The configured caps, the total lowered to half the process's file-descriptor limit where that
     * is lower: each client call holds an upstream connection too, and a gateway out of descriptors
     * can neither accept nor call out, so it refuses with a 503 while it still can.
     */
    static ConnectionCaps of(int configuredTotal, int perAddress) {
        long fds = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u
                ? u.getMaxFileDescriptorCount() : Long.MAX_VALUE;
        long share = (long) (fds * CLIENT_SHARE_OF_DESCRIPTORS);
        return new ConnectionCaps((int) Math.max(1, Math.min(configuredTotal, share)), perAddress);
    }

    /** Counts a new connection from {@code address}; false (and nothing counted) when a cap is reached. */
    boolean tryOpen(String address) {
        if (open.incrementAndGet() > total) {
            open.decrementAndGet();
            return false;
        }
        boolean[] admitted = {false};
        byAddress.compute(address, (a, n) -> {
            int now = n == null ? 0 : n;
            if (now >= perAddress) {
                return n;
            }
            admitted[0] = true;
            return now + 1;
        });
        if (!admitted[0]) {
            open.decrementAndGet();
        }
        return admitted[0];
    }

    /**
     * Whether a connection beyond a cap may be held until it is answered 503: at most a quarter of
     * the total at once (at least one). Beyond that it is closed unanswered as soon as it is
     * accepted, so that a flood of connections never takes the process's last descriptors: a
     * listener that meets its descriptor limit stops accepting (Netty pauses it, and here it was
     * seen not to resume), which would shut every client out.
     */
    boolean tryRefuse() {
        if (refusing.incrementAndGet() > refusingCap()) {
            refusing.decrementAndGet();
            return false;
        }
        return true;
    }

    /** A connection admitted by {@link #tryRefuse} has closed. */
    void refusedClosed() {
        refusing.decrementAndGet();
    }

    /** How many connections beyond a cap are held at once for their 503. */
    int refusingCap() {
        return Math.max(1, total / 4);
    }

    /** A connection counted by {@link #tryOpen} has closed. */
    void closed(String address) {
        byAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        open.decrementAndGet();
    }

    int open() {
        return open.get();
    }

    int total() {
        return total;
    }
}
