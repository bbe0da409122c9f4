package dev.sluice.runtime.rollout;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What one replica (or, summed, the fleet) counted on a rollout's target in an interval so far:
 * the counts and the latency distributions its {@link IntervalFigures} are drawn from. Unlike the
 * figures, tallies add up: the fleet's p95 is read from the replicas' distributions merged, not
 * averaged from their p95s. The histograms are copies no one changes once the tally is made.
 *
 * @param attempts attempts that reached the target
 * @param throttled of which the provider answered 429
 * @param failed of which failed
 * @param requests requests that had an attempt on the target
 * @param fellBack of which ended elsewhere
 * @param estimated answered attempts with an estimate to compare with
 * @param estimateErrorSum the sum of their |used - reserved| / reserved
 * @param latency answered attempts' latency, microseconds
 * @param ttft answered streams' time to first token, microseconds
 * @param queueWait the requests' queue wait, microseconds
 */
public record IntervalTally(long attempts, long throttled, long failed, long requests, long fellBack,
        long estimated, double estimateErrorSum, Histogram latency, Histogram ttft, Histogram queueWait) {

    /** The largest latency kept, in microseconds: an hour. */
    static final long HIGHEST_MICROS = 3_600_000_000L;

    public IntervalTally {
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(ttft, "ttft");
        Objects.requireNonNull(queueWait, "queueWait");
    }

    /** A tally of nothing. */
    public static IntervalTally none() {
        return new IntervalTally(0, 0, 0, 0, 0, 0, 0, histogram(), histogram(), histogram());
    }

    static Histogram histogram() {
        return new Histogram(1, HIGHEST_MICROS, 2);
    }

    /** This tally and {@code other} together. */
    public IntervalTally plus(IntervalTally other) {
        return new IntervalTally(attempts + other.attempts, throttled + other.throttled, failed + other.failed,
                requests + other.requests, fellBack + other.fellBack, estimated + other.estimated,
                estimateErrorSum + other.estimateErrorSum, merged(latency, other.latency), merged(ttft, other.ttft),
                merged(queueWait, other.queueWait));
    }

    /** The figures the analysis judges. */
    public IntervalFigures figures() {
        return new IntervalFigures(attempts, throttled, failed, requests, fellBack, p95(latency), p95(ttft),
                p95(queueWait), estimated == 0 ? 0 : estimateErrorSum / estimated);
    }

    /**
     * The tally as one line of text without tabs or line breaks, for another replica to read
     * ({@link #decode}): seven numbers and three compressed histograms, space-separated.
     */
    public String encode() {
        return attempts + " " + throttled + " " + failed + " " + requests + " " + fellBack + " " + estimated + " "
                + Double.toString(estimateErrorSum) + " " + encode(latency) + " " + encode(ttft) + " "
                + encode(queueWait);
    }

    /**
     * Reads a tally {@link #encode} wrote.
     *
     * @throws IllegalArgumentException when {@code text} is not one
     */
    public static IntervalTally decode(String text) {
        String[] f = text.split(" ");
        if (f.length != 10) {
            throw new IllegalArgumentException("tally: " + f.length + " fields (expected: 10)");
        }
        try {
            return new IntervalTally(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                    Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), Double.parseDouble(f[6]),
                    decodeHistogram(f[7]), decodeHistogram(f[8]), decodeHistogram(f[9]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("tally: " + e.getMessage(), e);
        }
    }

    private static String encode(Histogram h) {
        if (h.getTotalCount() == 0) {
            return "-";
        }
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        return Base64.getEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
    }

    private static Histogram decodeHistogram(String text) {
        if (text.equals("-")) {
            return histogram();
        }
        try {
            Histogram h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(text)),
                    HIGHEST_MICROS);
            Histogram out = histogram();
            out.add(h);
            return out;
        } catch (DataFormatException | RuntimeException e) {
            throw new IllegalArgumentException("tally: a histogram that cannot be read (" + e.getMessage() + ")", e);
        }
    }

    private static Histogram merged(Histogram a, Histogram b) {
        Histogram out = a.copy();
        out.add(b);
        return out;
    }

    private static OptionalLong p95(Histogram h) {
        return h.getTotalCount() == 0 ? OptionalLong.empty()
                : OptionalLong.of(h.getValueAtPercentile(95) * 1_000);
    }
}
