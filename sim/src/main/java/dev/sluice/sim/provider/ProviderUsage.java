package dev.sluice.sim.provider;

import dev.sluice.mock.limits.ProviderLimits;

/**
 * What one provider accepted, against what it could have accepted: the capacity of each rate limit
 * integrated over the accounted part of the run (limit cuts included), and the usage of requests
 * it admitted in that time.
 */
public final class ProviderUsage {

    private final long untilNanos;
    private final double[] startFill;
    private ProviderLimits limits;
    private long since;

    private double rpmCapacity;
    private double inputCapacity;
    private double outputCapacity;
    private double totalCapacity;

    private final java.util.Map<String, Long> rejectionsByLimit = new java.util.TreeMap<>();
    private long arrivals;
    private long rejections;
    private long acceptedRequests;
    private long acceptedInput;
    private long acceptedOutput;
    private long succeeded;

    ProviderUsage(ProviderLimits limits, long untilNanos) {
        this.limits = limits;
        // Token buckets start full, a minute's worth: that is capacity too.
        this.startFill = new double[] {perMinute(limits.inputTpm()), perMinute(limits.outputTpm()),
            perMinute(limits.tpm())};
        this.untilNanos = untilNanos;
    }

    void limitsChanged(ProviderLimits next, long now) {
        integrate(now);
        limits = next;
    }

    private void integrate(long now) {
        long to = Math.min(now, untilNanos);
        if (to <= since) {
            return;
        }
        double minutes = (to - since) / 60e9;
        rpmCapacity += perMinute(limits.rpm()) * minutes;
        inputCapacity += perMinute(limits.inputTpm()) * minutes;
        outputCapacity += perMinute(limits.outputTpm()) * minutes;
        totalCapacity += perMinute(limits.tpm()) * minutes;
        since = to;
    }

    private static double perMinute(long v) {
        return ProviderLimits.isLimited(v) ? v : 0;
    }

    void arrived(long now) {
        if (now < untilNanos) {
            arrivals++;
        }
    }

    void rejected(long now, String limit) {
        if (now < untilNanos) {
            rejections++;
            rejectionsByLimit.merge(limit, 1L, Long::sum);
        }
    }

    void admitted(long now, long input, long output, boolean success) {
        if (now < untilNanos) {
            acceptedRequests++;
            acceptedInput += input;
            acceptedOutput += output;
            if (success) {
                succeeded++;
            }
        }
    }

    /** The totals, with capacity integrated up to the end of the accounted time. */
    public Totals totals() {
        integrate(untilNanos);
        return new Totals(rpmCapacity, inputCapacity + startFill[0], outputCapacity + startFill[1],
                totalCapacity + startFill[2], arrivals,
                rejections, rejectionsByLimit, acceptedRequests, acceptedInput, acceptedOutput, succeeded);
    }

    /**
     * Capacity (0 where a dimension is not limited) and accepted usage, over the accounted time.
     *
     * @param arrivals attempts that reached the provider
     * @param rejections of those, refused with a 429
     * @param rejectionsByLimit the same, by the limit that refused
     */
    public record Totals(double rpmCapacity, double inputCapacity, double outputCapacity, double totalCapacity,
            long arrivals, long rejections, java.util.Map<String, Long> rejectionsByLimit, long acceptedRequests, long acceptedInput, long acceptedOutput,
            long succeeded) {
        public Totals {
            rejectionsByLimit = java.util.Map.copyOf(rejectionsByLimit);
        }
    }
}
