package dev.sluice.adapt;

/**
 * Client-side throttling state: attempts and accepts over the window. Thread-safe through its own
 * monitor, which it never holds while calling anything else.
 */
final class ClientThrottle {

    private static final int REQUESTS = 0;
    private static final int ACCEPTS = 1;
    private static final int SLICES = 12;

    private final ClientThrottleConfig config;
    private final RollingSums counts;

    ClientThrottle(ClientThrottleConfig config) {
        this.config = config;
        this.counts = new RollingSums(config.window(), SLICES, 2);
    }

    /** An answer came back; {@code accepted} unless it was a 429 or an overload. */
    synchronized void record(long now, boolean accepted) {
        counts.add(now, REQUESTS, 1);
        if (accepted) {
            counts.add(now, ACCEPTS, 1);
        }
    }

    /** Whether to refuse an attempt now, given a draw in [0, 1); a refused attempt counts as a request. */
    synchronized boolean refuse(long now, double uniform) {
        if (uniform < probability(now)) {
            counts.add(now, REQUESTS, 1);
            return true;
        }
        return false;
    }

    synchronized double probability(long now) {
        return ClientThrottlePolicy.rejectProbability(counts.sum(now, REQUESTS), counts.sum(now, ACCEPTS), config.k());
    }
}
