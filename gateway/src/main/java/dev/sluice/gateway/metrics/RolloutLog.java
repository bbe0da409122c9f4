package dev.sluice.gateway.metrics;

import dev.sluice.runtime.rollout.IntervalFigures;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.Rollouts;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every rollout decision as one log line (logger {@code dev.sluice.rollouts}) with the figures that
 * drove it: a pause or a rollback at warning, the rest at info. A decision holds no secret: its
 * {@code by} is a token's id, never the token.
 */
public final class RolloutLog {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.rollouts");

    private RolloutLog() {}

    /**
     * Logs every decision of {@code rollouts} from now on, and those already made (a rollout the
     * file starts at once decides while the runtime is built, before anyone listens).
     */
    public static void attach(Rollouts rollouts) {
        rollouts.inspect().forEach(v -> v.history().forEach(RolloutLog::log));
        rollouts.onDecision(RolloutLog::log);
    }

    /** Logs every decision of the scheduled jobs' warm-ups from now on, one line each. */
    public static void attach(dev.sluice.runtime.rollout.Warmups warmups) {
        warmups.onDecision(d -> {
            String line = line(d);
            if (d.action().equals("paused")) {
                LOG.warn(line);
            } else {
                LOG.info(line);
            }
        });
    }

    /** {@code warm-up nightly (tenant jobs): grown by analysis, minute 3, rates rpm 132: REASON}. */
    static String line(dev.sluice.runtime.rollout.WarmupDecision d) {
        StringBuilder rates = new StringBuilder();
        d.rates().forEach((dim, r) -> rates.append(rates.isEmpty() ? "" : ", ").append(dim.limiterName()).append(' ').append(r));
        return "warm-up " + d.warmup() + " (tenant " + d.tenant() + "): " + d.action() + " by " + d.by() + ", minute "
                + d.grown() + ", rates " + rates + ": " + d.reason();
    }

    private static void log(RolloutDecision d) {
        if (d.action() == RolloutDecision.Action.PAUSED || d.action() == RolloutDecision.Action.ROLLED_BACK) {
            LOG.warn(line(d));
        } else {
            LOG.info(line(d));
        }
    }

    /**
     * {@code rollout move: advanced by analysis, stage 0 -> 1, 50% on the target: REASON (interval:
     * attempts 120, 429s 1 (0.83%), ...)}; the interval's figures for the analysis's decisions.
     */
    static String line(RolloutDecision d) {
        return "rollout " + d.rollout() + ": " + d.action().wireName() + " by " + d.by() + ", stage " + d.stageBefore()
                + " -> " + d.stageAfter() + ", " + percent(d.percentAfter()) + "% on the target: " + d.reason()
                + d.figures().map(f -> " (interval: " + figures(f) + ")").orElse("");
    }

    private static String figures(IntervalFigures f) {
        return "attempts " + f.attempts() + ", 429s " + f.throttled() + " (" + percent(100 * f.provider429Rate())
                + "%), failed " + f.failed() + " (" + percent(100 * f.errorRate()) + "%), requests " + f.requests()
                + ", fell back " + f.fellBack() + " (" + percent(100 * f.fallbackRate()) + "%)"
                + ms(", p95 latency ", f.p95LatencyNanos()) + ms(", p95 ttft ", f.p95TimeToFirstTokenNanos())
                + ms(", p95 queue wait ", f.p95QueueWaitNanos()) + ", estimate error "
                + percent(100 * f.estimateError()) + "%";
    }

    private static String ms(String name, OptionalLong nanos) {
        return nanos.isPresent() ? name + nanos.getAsLong() / 1_000_000 + " ms" : "";
    }

    /** 10, 2.5, 0.83: at most two decimals, no trailing zeros. */
    private static String percent(double p) {
        return BigDecimal.valueOf(p).setScale(2, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
