package dev.sluice.sim.provider;

import dev.sluice.mock.limits.LimitKind;
import dev.sluice.mock.limits.ProviderLimitModel;
import dev.sluice.mock.limits.ProviderLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one provider accepted, against what it could have accepted, minute by minute over the
 * accounted part of the run: the capacity of each rate limit in force (configured limits, scripted
 * cuts, and the provider's own warm-up and unannounced changes) integrated over each minute, what
 * its limiters can hold in store beyond the refill (a bucket's content, full at the start), what
 * they held when the minute's first request arrived, and the usage of the requests it admitted in
 * that minute.
 */
public final class ProviderUsage {

    /** The length of a bin: per-minute limits are judged per minute. */
    public static final long BIN_NANOS = 60_000_000_000L;

    /** Step of the numeric integration of capacity; the limits in force change in steps. */
    private static final long STEP_NANOS = 100_000_000L;

    /** The limits tracked, in this order (the report's {@code rpm, input_tpm, output_tpm, tpm}). */
    static final LimitKind[] KINDS = {LimitKind.REQUESTS, LimitKind.INPUT_TOKENS, LimitKind.OUTPUT_TOKENS,
        LimitKind.TOKENS};

    private record Change(long atNanos, ProviderLimits limits) {}

    private final long untilNanos;
    private final ProviderLimitModel model;
    private final List<Change> changes = new ArrayList<>();
    private final List<double[]> acceptedBins = new ArrayList<>();
    private final double[] store = new double[4];
    private final List<double[]> heldBins = new ArrayList<>();
    private int sampledBins;

    private final Map<String, Long> rejectionsByLimit = new TreeMap<>();
    private long arrivals;
    private long rejections;
    private long acceptedRequests;
    private long acceptedInput;
    private long acceptedOutput;
    private long succeeded;

    ProviderUsage(ProviderLimitModel model, long untilNanos) {
        this.model = model;
        this.untilNanos = untilNanos;
        this.changes.add(new Change(0, model.limits()));
        for (int i = 0; i < 4; i++) {
            store[i] = model.initialHeadroom(KINDS[i]);
        }
    }

    void limitsChanged(ProviderLimits next, long now) {
        changes.add(new Change(now, next));
    }

    /** An attempt reaches the provider; called before the model judges it. */
    void arrived(long now) {
        if (now < untilNanos) {
            arrivals++;
            int b = (int) (now / BIN_NANOS);
            if (b >= sampledBins) {
                double[] h = bin(heldBins, b);
                for (int i = 0; i < 4; i++) {
                    h[i] = model.headroom(KINDS[i], now);
                }
                sampledBins = b + 1;
            }
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
            double[] bin = bin(acceptedBins, (int) (now / BIN_NANOS));
            bin[0] += 1;
            bin[1] += input;
            bin[2] += output;
            bin[3] += input + output;
        }
    }

    /** Bin {@code index} of {@code bins}, growing the list with empty bins as needed. */
    public static double[] bin(List<double[]> bins, int index) {
        while (bins.size() <= index) {
            bins.add(new double[4]);
        }
        return bins.get(index);
    }

    private static double perMinute(ProviderLimits l, int i) {
        long v = switch (i) {
            case 0 -> l.rpm();
            case 1 -> l.inputTpm();
            case 2 -> l.outputTpm();
            default -> l.tpm();
        };
        return ProviderLimits.isLimited(v) ? v : 0;
    }

    /** The totals: capacity per minute of the accounted time, and what was accepted. */
    public Totals totals() {
        int bins = (int) Math.ceilDiv(untilNanos, BIN_NANOS);
        double[][] capacity = new double[bins][4];
        int c = 0;
        for (long t = 0; t < untilNanos; t += STEP_NANOS) {
            while (c + 1 < changes.size() && changes.get(c + 1).atNanos() <= t) {
                c++;
            }
            long step = Math.min(STEP_NANOS, untilNanos - t);
            double f = model.rateFactor(t) * step / 60e9;
            double[] bin = capacity[(int) (t / BIN_NANOS)];
            for (int i = 0; i < 4; i++) {
                bin[i] += perMinute(changes.get(c).limits(), i) * f;
            }
        }
        return new Totals(BIN_NANOS, capacity, copy(acceptedBins, bins), store.clone(), copy(heldBins, bins), arrivals,
                rejections, rejectionsByLimit, acceptedRequests, acceptedInput, acceptedOutput, succeeded);
    }

    private static double[][] copy(List<double[]> bins, int n) {
        double[][] out = new double[n][];
        for (int b = 0; b < n; b++) {
            out[b] = b < bins.size() ? bins.get(b).clone() : new double[4];
        }
        return out;
    }

    /**
     * Capacity (0 where a dimension is not limited) and accepted usage, per minute of the accounted
     * time, in the order {@code rpm, input_tpm, output_tpm, tpm}.
     *
     * @param binNanos the length of a bin (the last may be shorter)
     * @param capacityBins per bin, what the limits in force refilled
     * @param acceptedBins per bin, what the provider admitted (by admission time)
     * @param store what each limiter can hold beyond its refill (a bucket's content), full at the start
     * @param heldBins per bin, what each limiter held in store when the bin's first request arrived
     * @param arrivals attempts that reached the provider
     * @param rejections of those, refused with a 429
     * @param rejectionsByLimit the same, by the limit that refused
     */
    public record Totals(long binNanos, double[][] capacityBins, double[][] acceptedBins, double[] store,
            double[][] heldBins,
            long arrivals,
            long rejections, Map<String, Long> rejectionsByLimit, long acceptedRequests, long acceptedInput,
            long acceptedOutput, long succeeded) {
        public Totals {
            rejectionsByLimit = Map.copyOf(rejectionsByLimit);
            if (capacityBins.length != acceptedBins.length || capacityBins.length != heldBins.length) {
                throw new IllegalArgumentException("bins: " + capacityBins.length + " capacity, " + acceptedBins.length
                        + " accepted (expected: the same)");
            }
        }

        /** Capacity over the whole accounted time, per limit: the refill plus what was in store at the start. */
        public double[] capacity() {
            double[] c = sum(capacityBins);
            for (int i = 0; i < 4; i++) {
                c[i] += c[i] > 0 ? store[i] : 0;
            }
            return c;
        }

        /** Accepted over the whole accounted time, per limit. */
        public double[] accepted() {
            return new double[] {acceptedRequests, acceptedInput, acceptedOutput, acceptedInput + acceptedOutput};
        }

        private static double[] sum(double[][] bins) {
            double[] out = new double[4];
            for (double[] b : bins) {
                for (int i = 0; i < 4; i++) {
                    out[i] += b[i];
                }
            }
            return out;
        }
    }
}
