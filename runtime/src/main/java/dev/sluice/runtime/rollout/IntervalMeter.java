package dev.sluice.runtime.rollout;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.TokenCounts;
import java.util.OptionalLong;
import org.HdrHistogram.Histogram;

/**
 * Collects an interval's {@link IntervalFigures} on one deployment from the request events.
 * Every attempt on the deployment counts, whichever profile sent it: the target's health is the
 * question. Not thread-safe: its {@link Rollouts} entry guards it.
 */
final class IntervalMeter {

    private static final long HIGHEST_MICROS = IntervalTally.HIGHEST_MICROS;

    private final String deployment;
    private long attempts;
    private long throttled;
    private long failed;
    private long requests;
    private long fellBack;
    private long estimated;
    private double estimateErrorSum;
    private final Histogram latency = IntervalTally.histogram();
    private final Histogram ttft = IntervalTally.histogram();
    private final Histogram queueWait = IntervalTally.histogram();

    IntervalMeter(String deployment) {
        this.deployment = deployment;
    }

    void onAttempt(AttemptEvent e) {
        if (!deployment.equals(e.deployment()) || e.result() == AttemptResult.CLIENT_GONE
                || e.result() == AttemptResult.NEVER_SENT) {
            return;
        }
        attempts++;
        switch (e.result()) {
            case THROTTLED -> throttled++;
            case FAILED -> failed++;
            case ANSWERED -> {
                latency.recordValue(micros(e.latencyNanos()));
                e.timeToFirstTokenNanos().ifPresent(t -> ttft.recordValue(micros(t)));
                long reserved = total(e.estimate());
                if (reserved > 0) {
                    estimated++;
                    estimateErrorSum += Math.abs(total(e.usage()) - reserved) / (double) reserved;
                }
            }
            default -> { }
        }
    }

    /** A shadow copy's attempt on the deployment: counted, its latency kept when it was answered. */
    void onShadow(AttemptResult result, long latencyNanos) {
        if (result == AttemptResult.CLIENT_GONE || result == AttemptResult.NEVER_SENT) {
            return;
        }
        attempts++;
        switch (result) {
            case THROTTLED -> throttled++;
            case FAILED -> failed++;
            case ANSWERED -> latency.recordValue(micros(latencyNanos));
            default -> { }
        }
    }

    void onRequest(RequestEvent e) {
        boolean ranHere = false;
        for (AttemptEvent a : e.attemptEvents()) {
            ranHere |= deployment.equals(a.deployment());
        }
        if (!ranHere) {
            return;
        }
        requests++;
        if (!e.deployment().map(deployment::equals).orElse(true)) {
            fellBack++;
        }
        queueWait.recordValue(micros(e.queueWaitNanos()));
    }

    /** The figures of the interval so far. */
    IntervalFigures peek() {
        return new IntervalFigures(attempts, throttled, failed, requests, fellBack, p95(latency),
                p95(ttft), p95(queueWait), estimated == 0 ? 0 : estimateErrorSum / estimated);
    }

    /** What the interval so far counted, copied: for the fleet to add up. */
    IntervalTally tally() {
        return new IntervalTally(attempts, throttled, failed, requests, fellBack, estimated, estimateErrorSum,
                latency.copy(), ttft.copy(), queueWait.copy());
    }

    /** The figures so far, and a fresh start for the next interval. */
    IntervalFigures drain() {
        IntervalFigures f = peek();
        attempts = throttled = failed = requests = fellBack = estimated = 0;
        estimateErrorSum = 0;
        latency.reset();
        ttft.reset();
        queueWait.reset();
        return f;
    }

    private static OptionalLong p95(Histogram h) {
        return h.getTotalCount() == 0 ? OptionalLong.empty()
                : OptionalLong.of(h.getValueAtPercentile(95) * 1_000);
    }

    private static long micros(long nanos) {
        return Math.min(HIGHEST_MICROS, Math.max(1, nanos / 1_000));
    }

    private static long total(TokenCounts t) {
        return t.input() + t.output();
    }
}
