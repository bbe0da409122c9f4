package dev.sluice.runtime.rollout;

import dev.sluice.adapt.Mode;
import dev.sluice.limits.Dimension;
import dev.sluice.runtime.config.RolloutConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An interval's verdict, and whether the target has room for the next step. Pure.
 *
 * <p>An interval with fewer attempts on the target than {@code min_requests} is inconclusive.
 * Otherwise the thresholds are asked in this order, the first exceeded being the breach: provider
 * 429 rate, error rate, fallback rate, p95 latency, p95 time to first token, p95 queue wait,
 * estimate error. A bound is exceeded when the figure is above it (a figure equal to its bound
 * passes).
 */
public final class RolloutAnalysis {

    private RolloutAnalysis() {}

    /** What one interval says. */
    public sealed interface Verdict {

        /** Every figure within its bound. */
        record Pass() implements Verdict {}

        /** Too little traffic on the target to judge. */
        record Inconclusive(long attempts, long needed) implements Verdict {}

        /**
         * A figure out of bounds.
         *
         * @param metric the threshold's name in the file ({@code provider_429_rate} ...)
         * @param value the interval's figure (a fraction, or milliseconds for latencies)
         * @param bound the threshold, in the same unit
         */
        record Breach(String metric, double value, double bound) implements Verdict {
            public Breach {
                Objects.requireNonNull(metric, "metric");
            }
        }
    }

    static final Verdict PASS = new Verdict.Pass();

    /** The verdict on {@code f} against {@code t}. */
    public static Verdict judge(IntervalFigures f, RolloutConfig.Thresholds t, long minRequests) {
        if (f.attempts() < minRequests) {
            return new Verdict.Inconclusive(f.attempts(), minRequests);
        }
        if (f.provider429Rate() > t.provider429Rate()) {
            return new Verdict.Breach("provider_429_rate", f.provider429Rate(), t.provider429Rate());
        }
        if (f.errorRate() > t.errorRate()) {
            return new Verdict.Breach("error_rate", f.errorRate(), t.errorRate());
        }
        if (f.fallbackRate() > t.fallbackRate()) {
            return new Verdict.Breach("fallback_rate", f.fallbackRate(), t.fallbackRate());
        }
        Optional<Verdict> slow = latency("p95_latency", f.p95LatencyNanos(), t.p95Latency())
                .or(() -> latency("p95_ttft", f.p95TimeToFirstTokenNanos(), t.p95TimeToFirstToken()))
                .or(() -> latency("p95_queue_wait", f.p95QueueWaitNanos(), t.p95QueueWait()));
        if (slow.isPresent()) {
            return slow.get();
        }
        if (f.estimateError() > t.estimateError()) {
            return new Verdict.Breach("estimate_error", f.estimateError(), t.estimateError());
        }
        return PASS;
    }

    private static Optional<Verdict> latency(String metric, OptionalLong nanos, Optional<Duration> bound) {
        if (nanos.isEmpty() || bound.isEmpty() || nanos.getAsLong() <= bound.get().toNanos()) {
            return Optional.empty();
        }
        return Optional.of(new Verdict.Breach(metric, nanos.getAsLong() / 1e6, bound.get().toNanos() / 1e6));
    }

    /**
     * What the target deployment can take now, as the runtime sees it.
     *
     * @param mode its adaptive mode ({@code NORMAL} without adaptive control)
     * @param rampFraction the share of its capacity its ramp allows (1 when not ramping)
     * @param limitsPerMinute its configured per-minute limits, per rate dimension
     */
    public record TargetState(Mode mode, double rampFraction, Map<Dimension, Long> limitsPerMinute) {
        public TargetState {
            Objects.requireNonNull(mode, "mode");
            limitsPerMinute = Map.copyOf(limitsPerMinute);
        }
    }

    /**
     * The profile's first attempts in a minute.
     *
     * @param requests requests
     * @param inputTokens reserved input tokens
     * @param outputTokens reserved output tokens
     */
    public record Demand(long requests, long inputTokens, long outputTokens) {

        /** No demand. */
        public static final Demand NONE = new Demand(0, 0, 0);

        /** This demand and {@code other} together. */
        public Demand plus(Demand other) {
            return new Demand(requests + other.requests, inputTokens + other.inputTokens,
                    outputTokens + other.outputTokens);
        }

        long in(Dimension d) {
            return switch (d) {
                case REQUESTS -> requests;
                case INPUT_TOKENS -> inputTokens;
                case OUTPUT_TOKENS -> outputTokens;
                default -> inputTokens + outputTokens;
            };
        }
    }

    /**
     * Why the target has no room for a step to {@code nextPercent} of {@code demand}, or empty
     * when it has: it must be in normal mode, its ramp complete, and the next share of the
     * profile's last minute within each of its per-minute limits.
     */
    public static Optional<String> noRoom(String target, TargetState s, Demand demand, double nextPercent) {
        if (s.mode() != Mode.NORMAL) {
            return Optional.of("deployment " + target + " is in mode " + s.mode().name().toLowerCase(java.util.Locale.ROOT));
        }
        if (s.rampFraction() < 1) {
            return Optional.of("deployment " + target + " is ramping, at " + Math.round(s.rampFraction() * 100)
                    + "% of its capacity");
        }
        for (Dimension d : RolloutConfig.GROWTH_DIMENSIONS) {
            Long limit = s.limitsPerMinute().get(d);
            if (limit == null) {
                continue;
            }
            double projected = demand.in(d) * nextPercent / 100;
            if (projected > limit) {
                return Optional.of("at " + nextPercent + "% deployment " + target + " would take "
                        + Math.round(projected) + " " + d.limiterName() + " of its " + limit);
            }
        }
        return Optional.empty();
    }
}
