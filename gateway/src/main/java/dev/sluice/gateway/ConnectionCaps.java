package dev.sluice.gateway;

import java.lang.management.ManagementFactory;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many client connections are open, in total and per remote address, against their caps.
 * Shared by every event loop of a gateway; thread-safe.
 */
final class ConnectionCaps {

    /**
     * Descriptors kept free beyond the client connections and their upstream calls: the Redis and
     * PostgreSQL connections opened as they are needed, the access log and other files, DNS, the
     * libraries and class files the JVM opens later, the admin listener and its clients.
     */
    static final int RESERVED_DESCRIPTORS = 64;

    private final int total;
    private final int perAddress;
    private final AtomicInteger open = new AtomicInteger();
    /** Connections beyond a cap held open until they are answered 503 (or time out). */
    private final AtomicInteger refusing = new AtomicInteger();
    /** Sockets accepted and not yet closed, counted by the acceptor ({@link #tryAccept}). */
    private final AtomicInteger accepted = new AtomicInteger();
    private final ConcurrentHashMap<String, Integer> byAddress = new ConcurrentHashMap<>();

    ConnectionCaps(int total, int perAddress) {
        this.total = total;
        this.perAddress = perAddress;
    }

    /**
     * The configured caps, the total lowered to what the process's descriptors allow where that is
     * lower ({@link #totalFor}), from the soft limit and the descriptors open now. (HotSpot raises
     * the soft limit to the hard one as it starts, {@code -XX:+MaxFDLimit}: the limit read is that.)
     */
    static ConnectionCaps of(int configuredTotal, int perAddress) {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return new ConnectionCaps(totalFor(configuredTotal, u.getMaxFileDescriptorCount(),
                    u.getOpenFileDescriptorCount()), perAddress);
        }
        return new ConnectionCaps(configuredTotal, perAddress);
    }

    /**
     * The total cap under a descriptor limit: what is left of {@code softLimit} once the
     * {@code openNow} descriptors (the JVM's own: its libraries, the jars of its class path, the
     * event loops' selectors, the store's and ledger's connections) and {@link #RESERVED_DESCRIPTORS}
     * are set aside, shared so that every counted connection can hold an upstream connection too and
     * a quarter of the total more can be held for their 503 ({@link #refusingCap}): nine quarters of a
     * descriptor per counted connection. {@code configured} where that is lower; at least one. A
     * process that reaches its limit fails to accept, to call out, to open a file, so the caps keep
     * it below.
     */
    static int totalFor(int configured, long softLimit, long openNow) {
        long free = softLimit - openNow - RESERVED_DESCRIPTORS;
        return (int) Math.max(1, Math.min(configured, free * 4 / 9));
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
     * the total at once (at least one). Beyond that it is closed unanswered, so that a flood of
     * connections never takes the process's last descriptors (on the gateway's own Vert.x the
     * acceptor already closes it, {@link #tryAccept}; this is the same rule for a Vert.x it was given).
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

    /**
     * Counts a socket the listener is accepting, before any of its work is done; false (nothing
     * counted) when the sockets accepted and not yet closed reach {@link #acceptCeiling}, and the
     * socket is then closed at once by the acceptor ({@link AcceptLimit}). Counted on the acceptor,
     * this bound holds however far the event loops are behind with the connections it hands them.
     */
    boolean tryAccept() {
        if (accepted.incrementAndGet() > acceptCeiling()) {
            accepted.decrementAndGet();
            return false;
        }
        return true;
    }

    /** A socket counted by {@link #tryAccept} has closed. */
    void acceptedClosed() {
        accepted.decrementAndGet();
    }

    /** The most sockets accepted and open at once: the total and the room held for 503s. */
    int acceptCeiling() {
        return total + refusingCap();
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
