package dev.sluice.runtime.rollout;

import java.util.Objects;
import java.util.Optional;

/**
 * One decision about a rollout, by its analysis or by an operator, with the figures that drove
 * it: what the log, the metrics and the rollout's history show.
 *
 * @param rollout the rollout's name
 * @param atEpochMillis when, wall time
 * @param action what was decided
 * @param by {@code analysis}, or the operator's name
 * @param stageBefore the stage before (-1 before the first)
 * @param stageAfter the stage after
 * @param percentAfter the target's share after, in percent (of the tenants not listed first)
 * @param reason one sentence saying why
 * @param figures the interval's figures, for a decision of the analysis
 */
public record RolloutDecision(String rollout, long atEpochMillis, Action action, String by, int stageBefore,
        int stageAfter, double percentAfter, String reason, Optional<IntervalFigures> figures) {

    public RolloutDecision {
        Objects.requireNonNull(rollout, "rollout");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(figures, "figures");
    }

    /** What a decision did. */
    public enum Action {
        STARTED, ADVANCED, HELD, PAUSED, RESUMED, ROLLED_BACK, COMPLETED;

        /** The name in events, the admin API and metrics: lower case. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
