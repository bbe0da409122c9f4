package dev.sluice.adapt;

/** The SRE book's client-side throttling probability. Pure. */
final class ClientThrottlePolicy {

    private ClientThrottlePolicy() {}

    /** {@code max(0, (requests - k * accepts) / (requests + 1))}. */
    static double rejectProbability(double requests, double accepts, double k) {
        return Math.max(0, (requests - k * accepts) / (requests + 1));
    }
}
